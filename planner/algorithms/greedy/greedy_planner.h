#ifndef SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_

#include "planner/framework/algorithm.h"
#include "planner/search/weighted_greedy.h"

namespace shardplan {

// The reference's four weighted greedy baselines as algorithms, one per weight. The routine,
// its order and tie-breaks are WeightedGreedyPlan's (planner/search/weighted_greedy.h, shared
// with NeuroShard's baseline portfolio). Table-wise only; no parameters; no cost model.
class GreedyPlanner : public Algorithm {
 public:
  explicit GreedyPlanner(GreedyWeight weight);

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  GreedyWeight weight_;
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_
