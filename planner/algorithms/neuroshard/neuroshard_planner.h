#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// NeuroShard's online search (MLSys'23, section 3.3; docs/neuroshard.md): beam search over
// column-wise splits around a greedy grid search over table-wise placements, every state scored
// by the full plan cost under the request's cost model, with a compute-cost cache shared across
// the search. Anytime: on a deadline it returns the best plan found so far, flagged.
class NeuroShardPlanner : public Algorithm {
 public:
  NeuroShardPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_
