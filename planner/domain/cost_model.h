#ifndef SHARDPLAN_PLANNER_DOMAIN_COST_MODEL_H_
#define SHARDPLAN_PLANNER_DOMAIN_COST_MODEL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "planner/domain/sharding_semantics.h"  // ShardView, CollectiveDemand
#include "planner/domain/task.h"

namespace shardplan {

// What a cost query needs to know of the task besides the shards.
struct CostContext {
  const Topology* topology = nullptr;
  int64_t batch_size = kDefaultBatchSize;  // global batch
  // kInference: ComputeCost is the forward pass only; the evaluation drops backward comm.
  Objective objective = Objective::kTraining;

  static CostContext For(const Task& task) {
    return {&task.topology, task.batch_size, task.objective};
  }
};

// Per-device time (ms) of collectives, by pass.
struct CollectiveCosts {
  std::vector<double> forward_ms;
  std::vector<double> backward_ms;
};

// A compute model of the DeepSets form cost(device) = Head(sum over its shards of Latent(shard)),
// as NeuroShard's neural compute model is. A search that grows device sets one shard at a time
// (NeuroShard's greedy) keeps each device's latent sum and pays one Head per new set instead of
// re-deriving every shard's latent. Head(sum of latents, summed in shard order in float) is
// bit-identical to CostModel::ComputeCost of those shards in that order.
class SumPooledCompute {
 public:
  virtual ~SumPooledCompute() = default;
  // Floats per latent.
  virtual int latent_size() const = 0;
  // The latent of one shard (latent_size() floats).
  virtual void ShardLatent(const CostContext& context, const ShardView& shard,
                           std::span<float> latent) const = 0;
  // The compute cost (ms) of a device whose shards' latents sum to `latent_sum`.
  virtual double CostOfLatentSum(std::span<const float> latent_sum) const = 0;
};

// The costs planners query (docs/design.md section 3.1): neural models and the analytic estimator
// implement it. Implementations are immutable after construction and safe to call from many
// threads at once.
class CostModel {
 public:
  virtual ~CostModel() = default;

  // "name@version", recorded in every plan this model costs.
  virtual std::string id() const = 0;

  // OK when the model can cost this task (e.g. neural comm models exist per device count).
  virtual absl::Status CheckSupports(const Task& task) const = 0;

  // Whether its costs depend on the tables' access histograms (Table::access_bins). A table
  // without one is then costed only after the caller imputes it, with a warning: never as if its
  // histogram were zeros (docs/cost-models.md, "Tables without a histogram").
  virtual bool ReadsAccessHistograms() const { return false; }

  // Why `table` lies outside the data the model was trained on, one line per feature out of
  // range (e.g. "bin_15 1 (trained on 0 to 0.104)"); empty when it lies inside, or when the
  // model does not record its range. The server warns with the plan: such a cost is an
  // extrapolation (docs/cost-models.md, "Outside the training data").
  virtual std::vector<std::string> OutsideTrainingRange(const Table& table) const { return {}; }
  // Why `topology` (its device count and hosts) lies outside the layouts the model's comm costs
  // were trained on; empty when inside, or when the model does not record them.
  virtual std::string OutsideTrainedTopology(const Topology& topology) const { return ""; }

  // The model's compute costs as a SumPooledCompute, when they have that form; null otherwise.
  // Owned by the model.
  virtual const SumPooledCompute* sum_pooled_compute() const { return nullptr; }

  // Whether the model costs shards of `type` and the collectives they cause. The default is the
  // column level (TABLE_WISE, COLUMN_WISE), whose one collective is the pooled all-to-all that
  // the comm costs below take as dim sums. EvaluatePlan refuses a plan with any other type
  // (FAILED_PRECONDITION naming it): no model costs a shard it does not understand.
  virtual bool CostsShardingType(ShardingType type) const { return IsColumnLevel(type); }

  // Whether the model costs routed layouts (row_layout.h: replicated row groups, a
  // data-parallel table on some devices, explicit routes): shards that serve the requesters
  // routed to them (ShardView::routed) and routed all-to-alls (CollectiveDemand::pairs).
  // EvaluatePlan refuses such plans under other models (FAILED_PRECONDITION naming the table).
  virtual bool CostsRowLayouts() const { return false; }

  // Forward + backward kernel time (ms) of one device holding `shards`. Each shard serves what
  // its sharding type says (sharding_semantics.h: LookupShare, BatchShare); only types
  // CostsShardingType accepts reach it.
  virtual double ComputeCost(const CostContext& context,
                             std::span<const ShardView> shards) const = 0;

  // Per-device backward all-to-all time (ms) from every device's dim sum.
  virtual std::vector<double> BackwardCommCosts(const CostContext& context,
                                                std::span<const int64_t> dim_sums) const = 0;

  // Per-device forward all-to-all time (ms) from every device's dim sum and the time each
  // device reaches the all-to-all after the earliest one (its wait, ms).
  virtual std::vector<double> ForwardCommCosts(const CostContext& context,
                                               std::span<const int64_t> dim_sums,
                                               std::span<const double> waits) const = 0;

  // Per-device forward and backward time (ms) of the collectives that row-level and
  // data-parallel shards cause (reduce-scatter, all-gather, all-reduce, cross-host all-to-all),
  // for every device of the context's topology. Only demands whose sharding type
  // CostsShardingType accepts reach it; the default, for models that accept none, answers NaN
  // wherever a demand charges a device so that a caller that skipped the check cannot miss it.
  virtual CollectiveCosts CostCollectives(const CostContext& context,
                                          std::span<const CollectiveDemand> demands) const;
};

// OK when `model` costs at least one sharding type each table of `task` allows (a table that
// allows only ROW_WISE cannot be planned under a model that costs the column level only);
// FAILED_PRECONDITION naming the first table that has none.
absl::Status CheckCostsAllowedTypes(const CostModel& model, const Task& task);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_COST_MODEL_H_
