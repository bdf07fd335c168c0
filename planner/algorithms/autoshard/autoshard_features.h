#ifndef SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_FEATURES_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_FEATURES_H_

// AutoShard's 21 table features (the reference's GymWrapper.used_table_features, in its order):
// dim, rows and pooling factor z-scored with the training tasks' statistics; the table's size in
// GB, raw; the 17 access-histogram bins, raw. Shared by the inference algorithm and the trainer
// (lab/rl/autoshard/), so both see the same numbers.

#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/autoshard/autoshard_architecture.h"
#include "planner/domain/policy.h"
#include "planner/domain/task.h"

namespace shardplan {

// The z-scored features, in feature order.
inline constexpr int kAutoShardNormalized = 3;
// "dims", "rows", "pooling_factors": the reference's keys of feature_means / feature_stds.
const char* AutoShardNormalizedName(int k);

// Mean and population standard deviation (numpy's np.std) over every table of the training
// tasks. A standard deviation of 0 subtracts the mean only, as the reference does.
struct AutoShardFeatureStats {
  double mean[kAutoShardNormalized] = {0.0, 0.0, 0.0};
  double stddev[kAutoShardNormalized] = {1.0, 1.0, 1.0};
};

// The feature groups an ablation zeroes (the paper's Table 2), and whether the cost head was
// trained (the reference's --disable-cost-model: the head stays as initialised but still feeds
// the actions).
struct AutoShardAblation {
  bool dim = false;
  bool rows = false;
  bool pooling_factor = false;
  bool size = false;
  bool distribution = false;
  bool cost_model = false;
};

struct AutoShardFeatureConfig {
  AutoShardFeatureStats stats;
  AutoShardAblation ablation;
};

AutoShardFeatureStats ComputeAutoShardFeatureStats(std::span<const Task> tasks);

// The policy constants that hold `config`: "feature_mean.<key>", "feature_std.<key>" for the
// three keys, and "ablate.<group>" (0 or 1) for dim, rows, pooling_factor, size, distribution,
// cost_model.
std::map<std::string, double> AutoShardConstants(const AutoShardFeatureConfig& config);
// Reads them back: FAILED_PRECONDITION naming the constant when one is missing, not finite, a
// negative std, an ablation other than 0 or 1, or a constant AutoShard does not know.
absl::StatusOr<AutoShardFeatureConfig> AutoShardConfigFromConstants(
    const std::map<std::string, double>& constants);

// The table's size feature: its bytes under the task's memory model (TableMemoryBytes) / 2^30.
// The reference counts fp16 weights only (rows x dim x 2 / 2^30): the same number for an fp16
// table of a task without optimizer or buffer multipliers.
double AutoShardTableSizeGb(const Table& table, const MemoryOptions& memory);

// The features of every table of `task`, in task order: num_tables x kAutoShardFeatures floats,
// row-major. A table without an access histogram gets the typical histogram of its rows and
// pooling factor (planner/estimators/typical_access.h), as the server costs such tables.
std::vector<float> AutoShardTableFeatures(const Task& task, const AutoShardFeatureConfig& config);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_FEATURES_H_
