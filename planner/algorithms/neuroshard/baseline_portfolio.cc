#include "planner/algorithms/neuroshard/baseline_portfolio.h"

#include <utility>

#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/search/weighted_greedy.h"

namespace shardplan::neuroshard {

absl::StatusOr<Plan> CheapestOfSearchAndBaselines(const Task& task, const CostModel& costs,
                                                  const StopSignal& stop, Plan search_plan,
                                                  bool* stopped) {
  Plan best = std::move(search_plan);
  SHARDPLAN_RETURN_IF_ERROR(EvaluatePlan(task, costs, best));
  for (GreedyWeight weight : {GreedyWeight::kSize, GreedyWeight::kDim, GreedyWeight::kLookup,
                              GreedyWeight::kSizeLookup}) {
    if (!stop.Check().ok()) {  // keep the best so far; the caller flags the plan
      if (stopped != nullptr) *stopped = true;
      break;
    }
    absl::StatusOr<Plan> candidate = WeightedGreedyPlan(task, weight, stop);
    if (!candidate.ok() || !EvaluatePlan(task, costs, *candidate).ok()) continue;
    // Only a real gain replaces the search's plan: costs summed in another shard order differ
    // in the last bits.
    if (candidate->cost_ms < best.cost_ms * (1.0 - 1e-9)) best = *std::move(candidate);
  }
  return best;
}

}  // namespace shardplan::neuroshard
