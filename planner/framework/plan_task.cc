#include "planner/framework/plan_task.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"

namespace shardplan {
namespace {

void Report(const PlanTaskOptions& options, std::string message, double fraction) {
  if (options.on_progress) options.on_progress(PlanningProgress{std::move(message), fraction});
}

// A planner's own plan that fails a structural check is a bug in the planner, not in the
// request: the caller gets INTERNAL, not INVALID_ARGUMENT.
absl::Status PlannerBug(const std::string& algorithm, const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument) return status;
  return absl::InternalError(
      absl::StrCat("algorithm ", algorithm, " produced an invalid plan: ", status.message()));
}

}  // namespace

absl::StatusOr<Plan> PlanTask(const Algorithm& planner, const Task& task, const CostModel& model,
                              const PlanTaskOptions& options) {
  const auto start = StopSignal::Clock::now();
  const AlgorithmInfo& info = planner.info();
  SHARDPLAN_RETURN_IF_ERROR(model.CheckSupports(task));
  SHARDPLAN_ASSIGN_OR_RETURN(ParamValues params, ResolveParams(info.params, options.params));

  // The caller's signal (cancellation and deadline) tightened by the task's own time limit.
  const StopSignal* outer = options.stop;
  StopSignal stop(
      outer != nullptr ? outer->deadline() : std::nullopt,
      outer != nullptr ? std::function<bool()>([outer] { return outer->cancelled(); }) : nullptr);
  if (task.max_planning_time_ms > 0) {
    stop.LimitDeadline(start + std::chrono::milliseconds(task.max_planning_time_ms));
  }

  Report(options,
         absl::StrCat(info.name, ": planning ", task.tables.size(), " tables on ",
                      task.topology.num_devices(), " devices"),
         0.0);
  PlanningContext context;
  context.cost_model = &model;
  context.params = params;
  context.seed = options.seed;
  context.stop = &stop;
  context.on_progress = options.on_progress;
  SHARDPLAN_ASSIGN_OR_RETURN(Plan plan, planner.Run(task, context));

  // FAILED_PRECONDITION (a device over its capacity) is the task's infeasibility, not a bug.
  SHARDPLAN_RETURN_IF_ERROR(PlannerBug(info.name, ValidatePlan(task, plan)));
  SHARDPLAN_RETURN_IF_ERROR(PlannerBug(info.name, EvaluatePlan(task, model, plan)));

  plan.algorithm = info.name;
  plan.parameters = params.values();
  plan.seed = options.seed;
  plan.cost_model = model.id();
  plan.cost_kind = "simulated";
  plan.stats.planning_time_ms =
      std::chrono::duration<double, std::milli>(StopSignal::Clock::now() - start).count();
  Report(options, absl::StrCat(info.name, ": done, cost ", plan.cost_ms, " ms"), 1.0);
  return plan;
}

}  // namespace shardplan
