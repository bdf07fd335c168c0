#ifndef SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

// A planning run's inputs, checked and resolved once (PreparePlanning): what a caller may keep
// and run later (a server's queued job) without checking or parsing anything again.
struct PreparedPlanning {
  const Algorithm* algorithm = nullptr;  // never null
  const CostModel* model = nullptr;      // never null; it supports the task
  const Policy* policy = nullptr;        // never null when the algorithm uses a policy
  ParamValues params;                    // resolved: defaults filled, canonical spelling
  uint64_t seed = 0;
};

// Checks that `model` can cost `task` (CostModel::CheckSupports) and resolves `params` against
// the algorithm's specs ("parameters.<name>: ..." errors). For an algorithm that uses a policy,
// `policy` is the one the caller resolved (FAILED_PRECONDITION "parameters.policy: ..." when it
// is null, is for another algorithm or fails Algorithm::CheckPolicy), and the resolved
// "policy" parameter becomes its exact name@version; for others it must be null. Everything
// passed must outlive the result.
absl::StatusOr<PreparedPlanning> PreparePlanning(const Algorithm& algorithm, const Task& task,
                                                 const CostModel& model,
                                                 const std::map<std::string, std::string>& params,
                                                 uint64_t seed, const Policy* policy = nullptr);

struct PlanningRunOptions {
  const StopSignal* stop = nullptr;  // null: never stops early
  std::function<void(const PlanningProgress&)> on_progress;
};

// Runs a prepared planning on `task` (the task it was prepared for): honours the task's own
// time limit on top of `options.stop`, runs the algorithm, validates the plan (ValidatePlan),
// evaluates it (EvaluatePlan, which records the cost model), and records algorithm,
// parameters, seed and planning time in it.
absl::StatusOr<Plan> RunPlanning(const PreparedPlanning& prepared, const Task& task,
                                 const PlanningRunOptions& options = {});

struct PlanTaskOptions {
  std::map<std::string, std::string> params;  // as the caller gave them
  uint64_t seed = 0;
  const Policy* policy = nullptr;    // for algorithms that use one (PreparePlanning)
  const StopSignal* stop = nullptr;  // null: never stops early
  std::function<void(const PlanningProgress&)> on_progress;
};

// The planning pipeline every caller uses (server, tools, benchmarks): PreparePlanning, then
// RunPlanning. The task must already have passed ValidateTask.
absl::StatusOr<Plan> PlanTask(const Algorithm& algorithm, const Task& task,
                              const CostModel& model, const PlanTaskOptions& options);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_
