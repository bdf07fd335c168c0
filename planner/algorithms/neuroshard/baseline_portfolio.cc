#include "planner/algorithms/neuroshard/baseline_portfolio.h"

#include <utility>

#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "planner/search/weighted_greedy.h"

namespace shardplan::neuroshard {

absl::StatusOr<Plan> CheapestOfSearchAndBaselines(const Task& task, const CostModel& costs,
                                                  const StopSignal& stop, Plan search_plan,
                                                  bool* stopped,
                                                  const std::vector<const Algorithm*>& others,
                                                  const PlanningContext* context) {
  Plan best = std::move(search_plan);
  SHARDPLAN_RETURN_IF_ERROR(EvaluatePlan(task, costs, best));
  const auto consider = [&](absl::StatusOr<Plan> candidate) {
    if (!candidate.ok() || !EvaluatePlan(task, costs, *candidate).ok()) return;
    // Only a real gain replaces the search's plan: costs summed in another shard order differ
    // in the last bits.
    if (candidate->cost_ms < best.cost_ms * (1.0 - 1e-9)) best = *std::move(candidate);
  };
  const auto keep_going = [&] {
    if (stop.Check().ok()) return true;
    if (stopped != nullptr) *stopped = true;  // keep the best so far; the caller flags the plan
    return false;
  };
  for (GreedyWeight weight : {GreedyWeight::kSize, GreedyWeight::kDim, GreedyWeight::kLookup,
                              GreedyWeight::kSizeLookup}) {
    if (!keep_going()) return best;
    consider(WeightedGreedyPlan(task, weight, stop));
  }
  const int64_t size = static_cast<int64_t>(task.tables.size()) * task.topology.num_devices();
  for (const Algorithm* algorithm :
       size <= kOtherAlgorithmsUpTo ? others : std::vector<const Algorithm*>{}) {
    if (!keep_going()) return best;
    const AlgorithmInfo& info = algorithm->info();
    if (info.uses_policy || context == nullptr) continue;
    absl::StatusOr<ParamValues> params = ResolveParams(info.params, {});
    if (!params.ok()) continue;
    PlanningContext run;
    run.cost_model = context->cost_model;
    run.params = *std::move(params);
    run.seed = context->seed;
    run.stop = &stop;
    absl::StatusOr<Plan> candidate = algorithm->Run(task, run);
    // Its own anytime plan is no complete answer to compare; an invalid one is never returned.
    if (!candidate.ok() || candidate->stats.anytime_result ||
        !ValidatePlan(task, *candidate).ok()) {
      continue;
    }
    consider(std::move(candidate));
  }
  return best;
}

}  // namespace shardplan::neuroshard
