#ifndef SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// DreamShard (Zha et al., NeurIPS'22; the reference's `dreamshard` sharder): places tables one
// by one, largest predicted cost first, each on the legal device of highest policy logit
// (first on ties), with a trained policy (docs/dreamshard.md, lab/rl/dreamshard/ trains it).
// Table-wise only; pinned tables stay on their devices; a table that fits no device is
// FAILED_PRECONDITION naming it. Deterministic: the seed is not used.
class DreamShardPlanner : public Algorithm {
 public:
  DreamShardPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;
  absl::Status CheckPolicy(const Policy& policy) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_PLANNER_H_
