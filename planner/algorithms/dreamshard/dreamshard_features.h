#ifndef SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_FEATURES_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_FEATURES_H_

#include <span>
#include <string>
#include <vector>

#include "planner/domain/task.h"

namespace shardplan {

// DreamShard's table features (the reference's load_table_configs_features_sizes), shared by
// the planner and its trainer (lab/rl/dreamshard/) so both see the same numbers:
//   [dim, row, pooling_factor, size, bin_0 .. bin_16], size = dim * row elements;
// row, size and pooling_factor z-scored over the task's tables with the population std
// (np.std); dim and the bins raw. Where a std is 0 (all tables alike) the reference divides by
// it and gets NaN: here only the mean is subtracted (the feature is 0 for every table).
inline constexpr int kDreamShardFeatures = 21;

// A table sent without an access histogram gets the policy's typical histogram, the mean
// histogram of its training tables, stored as constants "missing_access_bins.bin_<j>"
// (docs/dreamshard.md): the reference has no such tables, and refusing them would refuse tasks
// the other planners plan.
std::string MissingAccessBinConstant(int bin);

// The features of every table of `task`, in task order, row-major [tables][21].
// `missing_bins` (kNumAccessBins values) stands in for an empty Table::access_bins.
std::vector<float> DreamShardFeatures(const Task& task, std::span<const double> missing_bins);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_FEATURES_H_
