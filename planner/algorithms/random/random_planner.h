#ifndef SHARDPLAN_PLANNER_ALGORITHMS_RANDOM_RANDOM_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_RANDOM_RANDOM_PLANNER_H_

#include <cstdint>
#include <random>

#include "planner/framework/algorithm.h"

namespace shardplan {

// The reference's random baseline: every unit (table, or colocation group) in table order goes
// to a uniformly random device; pinned units go to their devices first. With respect_memory
// (the default) the draw is among the devices that still hold the unit, and a unit that fits
// nowhere is an infeasibility error; without it, as in the reference, the plan may overfill a
// device, which PlanTask reports as FAILED_PRECONDITION. The same seed gives the same plan on
// every platform.
class RandomPlanner : public Algorithm {
 public:
  RandomPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_RANDOM_RANDOM_PLANNER_H_
