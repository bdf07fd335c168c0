#include "planner/algorithms/neuroshard/type_search.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "planner/algorithms/neuroshard/greedy_grid.h"
#include "planner/algorithms/neuroshard/split_state.h"
#include "planner/algorithms/neuroshard/table_layouts.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/search/shard_cost_cache.h"

namespace shardplan::neuroshard {
namespace {

using Layouts = std::vector<std::optional<TableSharding>>;

// The tables `layouts` leave at the column level, in task order, on devices less the layouts'
// memory; colocation groups keep the names left (the pre-pass never moves a colocated table).
Task ColumnLevelTask(const Task& task, const Layouts& layouts, std::vector<int>& index_in_task) {
  Task column = task;
  column.tables.clear();
  index_in_task.clear();
  std::set<std::string> left;
  for (size_t t = 0; t < task.tables.size(); ++t) {
    if (layouts[t].has_value()) {
      std::vector<int64_t> used(task.topology.memory_bytes.size(), 0);
      AddLayoutBytes(task.tables[t], *layouts[t], task.memory, +1, used);
      for (size_t d = 0; d < used.size(); ++d) column.topology.memory_bytes[d] -= used[d];
      continue;
    }
    column.tables.push_back(task.tables[t]);
    index_in_task.push_back(static_cast<int>(t));
    left.insert(task.tables[t].name);
  }
  column.colocate.clear();
  for (const std::vector<std::string>& group : task.colocate) {
    std::vector<std::string> kept;
    for (const std::string& name : group) {
      if (left.count(name) > 0) kept.push_back(name);
    }
    if (!kept.empty()) column.colocate.push_back(std::move(kept));
  }
  return column;
}

struct TypeCandidate {
  bool feasible = false;
  bool stopped = false;
  absl::Status failure;
  std::vector<TableSharding> tables;  // task order
  std::vector<std::string> column_splits;
};

// Today's search on the column-level part of `layouts`, merged with them.
TypeCandidate SearchWith(const Task& task, const Layouts& layouts, const CostModel& model,
                         const BeamOptions& options, bool cost_cache, const StopSignal& stop,
                         const std::function<void(const PlanningProgress&)>& on_progress,
                         TypeSearchResult& totals) {
  TypeCandidate candidate;
  std::vector<int> index_in_task;
  const Task column = ColumnLevelTask(task, layouts, index_in_task);
  Plan column_plan;
  if (!column.tables.empty()) {
    absl::StatusOr<SearchProblem> problem = MakeSearchProblem(column, options.beam_search);
    if (!problem.ok()) {
      candidate.failure = problem.status();
      return candidate;
    }
    const ShardCostCache cache(model, column, cost_cache, /*single_thread=*/options.threads <= 1);
    SearchResult result = BeamSearch(*problem, options, cache, stop, on_progress);
    totals.cache_hits += cache.hits();
    totals.cache_misses += cache.misses();
    totals.plan_evaluations += result.plan_evaluations;
    totals.candidates_evaluated += result.candidates_evaluated;
    candidate.stopped = result.stopped;
    if (!result.feasible) {
      candidate.failure = result.unsplit_failure;
      return candidate;
    }
    column_plan = PlanOfState(column, result.state, result.device_of_piece);
  }
  candidate.feasible = true;
  candidate.column_splits = std::move(column_plan.stats.column_splits);
  candidate.tables.resize(task.tables.size());
  for (size_t t = 0; t < task.tables.size(); ++t) {
    if (layouts[t].has_value()) candidate.tables[t] = *layouts[t];
  }
  for (size_t i = 0; i < index_in_task.size(); ++i) {
    candidate.tables[index_in_task[i]] = std::move(column_plan.tables[i]);
  }
  return candidate;
}

}  // namespace

TypeSearchResult SearchEveryType(const Task& task, const CostModel& model, const TypeStart& start,
                                 const BeamOptions& options, bool cost_cache,
                                 const StopSignal& stop,
                                 const std::function<void(const PlanningProgress&)>& on_progress) {
  TypeSearchResult result;
  std::vector<Layouts> starts;
  const int64_t size = static_cast<int64_t>(task.tables.size()) * task.topology.num_devices();
  if (!start.any_chosen() || size <= kChosenSearchUpTo) starts.push_back(start.layout);
  if (start.any_chosen()) {
    Layouts forced_only(task.tables.size());
    for (size_t t = 0; t < task.tables.size(); ++t) {
      if (start.forced[t]) forced_only[t] = start.layout[t];
    }
    starts.push_back(std::move(forced_only));
  }
  LayoutCoster coster(task, model);
  std::vector<TableSharding> best_tables;
  std::vector<std::string> best_splits;
  PlacementCost best_cost;
  for (const Layouts& layouts : starts) {
    TypeCandidate candidate =
        SearchWith(task, layouts, model, options, cost_cache, stop, on_progress, result);
    result.stopped = result.stopped || candidate.stopped;
    if (!candidate.feasible) {
      // The error of the run closest to today's search (the last) names the table.
      if (!candidate.failure.ok()) result.failure = candidate.failure;
    } else {
      PlacementCost cost = coster.Cost(candidate.tables);
      if (!result.feasible || cost.cost_ms < best_cost.cost_ms) {
        result.feasible = true;
        best_cost = std::move(cost);
        best_tables = std::move(candidate.tables);
        best_splits = std::move(candidate.column_splits);
      }
    }
    if (result.stopped) break;
  }
  result.plan_evaluations += coster.plans_costed();
  if (!result.feasible) return result;

  if (!result.stopped) {
    result.refine = RefineTypes(task, model, start, stop, best_tables, best_cost);
    result.plan_evaluations += result.refine.plans_costed;
    result.stopped = result.refine.stopped;
  }
  // Splits of tables the refinement moved off the column level no longer describe the plan.
  std::set<std::string> column_wise;
  for (const TableSharding& sharding : best_tables) {
    if (sharding.sharding_type == ShardingType::kColumnWise) column_wise.insert(sharding.table);
  }
  for (const std::string& name : best_splits) {
    if (column_wise.count(name) > 0) result.plan.stats.column_splits.push_back(name);
  }
  result.plan.tables = std::move(best_tables);
  result.cost_ms = best_cost.cost_ms;
  return result;
}

}  // namespace shardplan::neuroshard
