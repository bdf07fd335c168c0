#ifndef SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// AutoShard (Zha et al., KDD 2022; docs/autoshard.md): a trained LSTM policy places whole tables
// one per step, largest predicted cost first, each on the device of the highest logit (argmax,
// as the reference's evaluation). Pinned units go to their devices first; a table that does not
// allow TABLE_WISE is refused, naming it. With mask_memory (the default) only devices where the
// unit still fits compete, so the plan fits whenever this greedy order can make it fit; without
// it, as in the reference, the plan may overfill a device and PlanTask reports it infeasible.
// Deterministic: the seed is not used.
class AutoShardPlanner : public Algorithm {
 public:
  AutoShardPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;
  absl::Status CheckPolicy(const Policy& policy) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_PLANNER_H_
