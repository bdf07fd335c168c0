#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_TORCHREC_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_TORCHREC_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// TorchRec's EmbeddingShardingPlanner pipeline (docs/torchrec-planner.md): enumerate TW and
// equal-width CW options with TorchRec's own analytic estimator, run the default proposers
// (grid search, greedy with and without depth, uniform), place each new proposal with
// GreedyPerfPartitioner, and keep the plan with the lowest NoopPerfModel rating. The request's
// cost model is not consulted; PlanTask evaluates the plan under it as for every algorithm.
// Anytime: on a stop it returns the best plan so far, flagged.
class TorchRecPlanner : public Algorithm {
 public:
  TorchRecPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_TORCHREC_PLANNER_H_
