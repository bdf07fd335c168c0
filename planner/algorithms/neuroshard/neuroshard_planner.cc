#include "planner/algorithms/neuroshard/neuroshard_planner.h"

#include <optional>
#include <string>
#include <utility>

#include "base/status_macros.h"
#include "planner/algorithms/neuroshard/baseline_portfolio.h"
#include "planner/algorithms/neuroshard/beam_search.h"
#include "planner/algorithms/neuroshard/greedy_grid.h"
#include "planner/algorithms/neuroshard/split_state.h"
#include "planner/algorithms/neuroshard/table_layouts.h"
#include "planner/algorithms/neuroshard/type_prepass.h"
#include "planner/algorithms/neuroshard/type_search.h"
#include "planner/search/shard_cost_cache.h"

namespace shardplan {
namespace {

ParamSpec IntParam(std::string name, std::string default_value, std::string description,
                   double min_value, double max_value) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::kInt,
                   .default_value = std::move(default_value),
                   .description = std::move(description),
                   .min_value = min_value,
                   .max_value = max_value};
}

ParamSpec BoolParam(std::string name, std::string description) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::kBool,
                   .default_value = "true",
                   .description = std::move(description),
                   .min_value = std::nullopt,
                   .max_value = std::nullopt};
}

// Whether `model` costs a type beyond the column level.
bool CostsRowLevel(const CostModel& model) {
  for (ShardingType type : neuroshard::kRowLevelTypes) {
    if (model.CostsShardingType(type)) return true;
  }
  return false;
}

}  // namespace

NeuroShardPlanner::NeuroShardPlanner(std::vector<const Algorithm*> portfolio)
    : portfolio_(std::move(portfolio)) {
  info_.name = neuroshard::kAlgorithmName;
  info_.description =
      "NeuroShard online search: beam search over column-wise splits around a greedy grid "
      "search over table-wise placements, scored by the cost model (MLSys'23), with "
      "data-parallel, row-wise and table-row-wise tables where the model predicts them cheaper.";
  info_.params = {
      IntParam("beam_width", "3", "Beam width K: split sequences kept per step.", 1, 64),
      IntParam("candidates", "10",
               "N: split candidates per state, the top N by memory united with the top N by "
               "predicted compute cost.",
               1, 1024),
      IntParam("max_steps", "10", "L: the most column-split steps.", 0, 64),
      IntParam("grid_steps", "11",
               "M: max-dim scales tried, evenly from 1.0 to 1.5 of the mean "
               "device dim sum.",
               1, 101),
      BoolParam("beam_search",
                "false: no column splits, the grid search on the unsplit tables "
                "only (paper Table 3 ablation)."),
      BoolParam("grid_search",
                "false: one greedy run without the max-dim cap per state instead "
                "of the grid (paper Table 3 ablation)."),
      BoolParam("cost_cache", "false: every compute-cost query calls the model (ablation)."),
      BoolParam("baselines",
                "true: the four greedy baselines' and the torchrec algorithm's plans are costed "
                "under the model too, and one predicted cheaper than the search's is returned; "
                "false: the search alone."),
      BoolParam("row_level",
                "true: tables may also become DATA_PARALLEL, ROW_WISE or TABLE_ROW_WISE where "
                "they allow it and the model costs it; false: the column level only, the "
                "reference's search (ablation)."),
      IntParam("threads", "1",
               "Threads evaluating one beam step's candidates; the plan does "
               "not depend on it.",
               1, 64),
  };
  info_.sharding_types = {ShardingType::kTableWise, ShardingType::kColumnWise,
                          ShardingType::kRowWise, ShardingType::kTableRowWise,
                          ShardingType::kDataParallel};  // torchrec's order
  info_.uses_cost_model = true;
}

absl::StatusOr<Plan> NeuroShardPlanner::Run(const Task& task,
                                            const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  const ParamValues& params = context.params;
  neuroshard::BeamOptions options;
  options.beam_width = static_cast<int>(params.GetInt("beam_width"));
  options.candidates = static_cast<int>(params.GetInt("candidates"));
  options.max_steps = static_cast<int>(params.GetInt("max_steps"));
  options.beam_search = params.GetBool("beam_search");
  options.threads = static_cast<int>(params.GetInt("threads"));
  options.grid.grid_steps = static_cast<int>(params.GetInt("grid_steps"));
  options.grid.grid_search = params.GetBool("grid_search");

  const neuroshard::TypeStart start = params.GetBool("row_level")
                                          ? neuroshard::ChooseTypeStart(task, *context.cost_model)
                                          : neuroshard::TypeStart{};
  if (start.any_movable()) return RunEveryType(task, context, options, start);

  SHARDPLAN_ASSIGN_OR_RETURN(const neuroshard::SearchProblem problem,
                             neuroshard::MakeSearchProblem(task, options.beam_search));
  const ShardCostCache cache(*context.cost_model, task, params.GetBool("cost_cache"),
                             /*single_thread=*/options.threads <= 1);
  neuroshard::SearchResult result =
      neuroshard::BeamSearch(problem, options, cache, *context.stop, context.on_progress);
  if (!result.feasible) {
    if (result.stopped) {
      absl::Status stopped = context.stop->Check();
      return stopped.ok() ? absl::DeadlineExceededError("neuroshard stopped before any plan")
                          : stopped;
    }
    return result.unsplit_failure;
  }

  Plan plan = neuroshard::PlanOfState(task, result.state, result.device_of_piece);
  // A search cut short keeps its anytime plan: the portfolio needs a complete one to beat.
  bool portfolio_stopped = false;
  if (params.GetBool("baselines") && !result.stopped) {
    // The cache costs the column level only; the others' plans may hold any type.
    const bool row_level = CostsRowLevel(*context.cost_model);
    SHARDPLAN_ASSIGN_OR_RETURN(
        plan, neuroshard::CheapestOfSearchAndBaselines(
                  task, row_level ? *context.cost_model : cache, *context.stop, std::move(plan),
                  &portfolio_stopped, portfolio_, &context));
  }
  plan.stats.cost_cache_hits = cache.hits();
  plan.stats.cost_cache_misses = cache.misses();
  plan.stats.cost_model_calls = cache.misses() + result.plan_evaluations;
  plan.stats.candidates_evaluated = result.candidates_evaluated;
  plan.stats.anytime_result = result.stopped || portfolio_stopped;
  return plan;
}

absl::StatusOr<Plan> NeuroShardPlanner::RunEveryType(const Task& task,
                                                     const PlanningContext& context,
                                                     const neuroshard::BeamOptions& options,
                                                     const neuroshard::TypeStart& start) const {
  const ParamValues& params = context.params;
  neuroshard::TypeSearchResult result =
      neuroshard::SearchEveryType(task, *context.cost_model, start, options,
                                  params.GetBool("cost_cache"), *context.stop, context.on_progress);
  if (!result.feasible) {
    if (result.stopped) {
      absl::Status stopped = context.stop->Check();
      return stopped.ok() ? absl::DeadlineExceededError("neuroshard stopped before any plan")
                          : stopped;
    }
    return result.failure;
  }
  Plan plan = std::move(result.plan);
  bool portfolio_stopped = false;
  if (params.GetBool("baselines") && !result.stopped) {
    SHARDPLAN_ASSIGN_OR_RETURN(plan, neuroshard::CheapestOfSearchAndBaselines(
                                         task, *context.cost_model, *context.stop, std::move(plan),
                                         &portfolio_stopped, portfolio_, &context));
  }
  plan.stats.cost_cache_hits = result.cache_hits;
  plan.stats.cost_cache_misses = result.cache_misses;
  plan.stats.cost_model_calls = result.cache_misses + result.plan_evaluations;
  plan.stats.candidates_evaluated = result.candidates_evaluated;
  plan.stats.anytime_result = result.stopped || portfolio_stopped;
  return plan;
}

}  // namespace shardplan
