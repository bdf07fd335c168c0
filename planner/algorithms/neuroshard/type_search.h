#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_SEARCH_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_SEARCH_H_

// NeuroShard's search over every sharding type: the type pre-pass, today's column-level search
// on the tables it leaves at the column level, and the type refinement (docs/neuroshard.md,
// "Every sharding type").

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "planner/algorithms/neuroshard/beam_search.h"
#include "planner/algorithms/neuroshard/type_prepass.h"
#include "planner/algorithms/neuroshard/type_refinement.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::neuroshard {

// The largest task (tables x devices) on which the column-level search also runs on the tables
// the pre-pass left by choice. Above it only the run with the forced tables moved is made
// (today's search, plus tables that must leave) and the refinement alone tries the pre-pass's
// choices: at 1000 tables on 128 devices under analytic@1 the second run doubled the planning
// time and its plan lost to the first (docs/neuroshard.md, "Every sharding type").
inline constexpr int64_t kChosenSearchUpTo = 16384;

struct TypeSearchResult {
  bool feasible = false;
  bool stopped = false;  // the stop signal cut the search short
  absl::Status failure;  // when infeasible: the column-level search's error
  Plan plan;             // tables in task order and column_splits; figures left to EvaluatePlan
  double cost_ms = 0.0;  // the plan's cost under the model
  int64_t cache_hits = 0;
  int64_t cache_misses = 0;
  int64_t plan_evaluations = 0;  // full plan costs: the column searches' and the type search's
  int64_t candidates_evaluated = 0;
  RefineStats refine;
};

// The column-level search (BeamSearch, `options`, a ShardCostCache per run) on the tables that
// `start` leaves at the column level, in devices' memory less its layouts; when `start` moved
// tables by choice, a second run with only the forced ones moved, and the cheaper whole plan
// (under `model`) of the two, the first on ties (above kChosenSearchUpTo tables x devices, the
// second run alone); then RefineTypes on it. Stopped, it returns
// the best plan found so far, flagged, unrefined.
TypeSearchResult SearchEveryType(const Task& task, const CostModel& model, const TypeStart& start,
                                 const BeamOptions& options, bool cost_cache,
                                 const StopSignal& stop,
                                 const std::function<void(const PlanningProgress&)>& on_progress);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_SEARCH_H_
