#ifndef SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_

#include "planner/framework/algorithm.h"
#include "planner/search/weighted_greedy.h"

namespace shardplan {

// The reference's four weighted greedy baselines, one routine parameterised by the weight
// (WeightedGreedyPlan, planner/search/weighted_greedy.h). Units (tables, or colocation groups
// summed) are taken largest first by (cost, size, index); each goes to the device with the smallest
// running cost sum among devices that still hold it, ties to the smaller memory used, then the
// lower index. Pinned units go first, in index order, to their devices. Unlike the reference, a
// unit that fits nowhere is an infeasibility error, never an over-full device. Table-wise only; no
// parameters; no cost model.
class GreedyPlanner : public Algorithm {
 public:
  explicit GreedyPlanner(GreedyWeight weight);

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

  // The weight of one table (GreedyTableWeight).
  static double TableCost(GreedyWeight weight, const Table& table, const MemoryOptions& memory);

 private:
  GreedyWeight weight_;
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_GREEDY_GREEDY_PLANNER_H_
