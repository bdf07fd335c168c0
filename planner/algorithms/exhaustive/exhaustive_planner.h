#ifndef SHARDPLAN_PLANNER_ALGORITHMS_EXHAUSTIVE_EXHAUSTIVE_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_EXHAUSTIVE_EXHAUSTIVE_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// The exact optimum over all table-wise placements under the cost model: a depth-first search
// over units (tables, or colocation groups) in table order and devices in index order, pruned
// by memory, with pinned units fixed; every complete placement is scored with CostOfPlacement
// and the first one found wins ties. Parameter max_placements bounds num_devices^free_units
// (RESOURCE_EXHAUSTED beyond it). It polls the stop signal every few leaves, so it also serves
// tests of deadlines and cancellation.
class ExhaustivePlanner : public Algorithm {
 public:
  ExhaustivePlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_EXHAUSTIVE_EXHAUSTIVE_PLANNER_H_
