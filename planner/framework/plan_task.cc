#include "planner/framework/plan_task.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"
#include "planner/framework/oversized_tables.h"

namespace shardplan {
namespace {

void Report(const std::function<void(const PlanningProgress&)>& on_progress, std::string message,
            double fraction) {
  if (on_progress) on_progress(PlanningProgress{std::move(message), fraction});
}

// A planner's own plan that fails a structural check is a bug in the planner, not in the
// request: the caller gets INTERNAL, not INVALID_ARGUMENT.
absl::Status PlannerBug(const std::string& algorithm, const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument) return status;
  return absl::InternalError(
      absl::StrCat("algorithm ", algorithm, " produced an invalid plan: ", status.message()));
}

// Sharding moves bytes between devices but never removes any (a replica adds some): tables that
// need more than all devices hold together are refused before any search. TorchRec's planner
// enumerated and partitioned for 28 s of CPU before saying so.
absl::Status CheckTotalMemoryFits(const AlgorithmInfo& info, const Task& task) {
  int64_t needed = 0;
  const Table* largest = nullptr;
  int64_t largest_bytes = -1;
  for (const Table& table : task.tables) {
    const int64_t bytes = TableMemoryBytes(table, task.memory);
    needed = AddBytes(needed, bytes);
    if (bytes > largest_bytes) {
      largest_bytes = bytes;
      largest = &table;
    }
  }
  int64_t capacity = 0;
  for (int64_t bytes : task.topology.memory_bytes) capacity = AddBytes(capacity, bytes);
  if (needed <= capacity || largest == nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("task is infeasible for ", info.name, ": its tables need ", FormatGiB(needed),
                   " (", needed, " bytes) but the ", task.topology.num_devices(), " devices hold ",
                   FormatGiB(capacity), " (", capacity,
                   " bytes) together, however they are sharded; the "
                   "largest table \"",
                   largest->name, "\" needs ", FormatGiB(largest_bytes)));
}

// A policy exactly when the algorithm uses one, and one it can run.
absl::Status CheckPlanningPolicy(const Algorithm& algorithm, const Policy* policy) {
  const AlgorithmInfo& info = algorithm.info();
  if (!info.uses_policy) {
    if (policy == nullptr) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("parameters.policy: algorithm ", info.name, " uses no policy"));
  }
  if (policy == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("parameters.policy: algorithm ", info.name,
                     " plans with a trained policy and none was given"));
  }
  if (policy->algorithm != info.name) {
    return absl::FailedPreconditionError(absl::StrCat("parameters.policy: ", policy->id(),
                                                      " is a policy of ", policy->algorithm,
                                                      ", not of ", info.name));
  }
  absl::Status runnable = algorithm.CheckPolicy(*policy);
  if (!runnable.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("parameters.policy: ", runnable.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PreparedPlanning> PreparePlanning(const Algorithm& algorithm, const Task& task,
                                                 const CostModel& model,
                                                 const std::map<std::string, std::string>& params,
                                                 uint64_t seed, const Policy* policy) {
  SHARDPLAN_RETURN_IF_ERROR(model.CheckSupports(task));
  SHARDPLAN_RETURN_IF_ERROR(CheckCostsAllowedTypes(model, task));
  SHARDPLAN_ASSIGN_OR_RETURN(ParamValues resolved,
                             ResolveParams(algorithm.info().params, params));
  SHARDPLAN_RETURN_IF_ERROR(CheckPlanningPolicy(algorithm, policy));
  if (policy != nullptr) {
    std::map<std::string, std::string> values = resolved.values();
    values["policy"] = policy->id();
    resolved = ParamValues(std::move(values));
  }
  return PreparedPlanning{&algorithm, &model, policy, std::move(resolved), seed};
}

absl::StatusOr<Plan> RunPlanning(const PreparedPlanning& prepared, const Task& task,
                                 const PlanningRunOptions& options) {
  const auto start = StopSignal::Clock::now();
  const AlgorithmInfo& info = prepared.algorithm->info();
  SHARDPLAN_RETURN_IF_ERROR(CheckTotalMemoryFits(info, task));
  // A table larger than every device needs shards that split it, which the algorithm must place
  // and the model cost: said up front, naming what is missing, rather than as a placement that
  // found no room (or a search over proposals none of which can hold it).
  SHARDPLAN_RETURN_IF_ERROR(CheckOversizedTables(info, prepared.model, task));

  // The caller's signal (cancellation and deadline) tightened by the task's own time limit.
  const StopSignal* outer = options.stop;
  StopSignal stop(
      outer != nullptr ? outer->deadline() : std::nullopt,
      outer != nullptr ? std::function<bool()>([outer] { return outer->cancelled(); }) : nullptr);
  if (task.max_planning_time_ms > 0) {
    // ValidateTask bounds it; the min keeps an unvalidated task from overflowing the clock.
    stop.LimitDeadline(start + std::chrono::milliseconds(
                                   std::min(task.max_planning_time_ms, kMaxTaskPlanningTimeMs)));
  }

  Report(options.on_progress,
         absl::StrCat(info.name, ": planning ", task.tables.size(), " tables on ",
                      task.topology.num_devices(), " devices"),
         0.0);
  PlanningContext context;
  context.cost_model = prepared.model;
  context.policy = prepared.policy;
  context.params = prepared.params;
  context.seed = prepared.seed;
  context.stop = &stop;
  context.on_progress = options.on_progress;
  SHARDPLAN_ASSIGN_OR_RETURN(Plan plan, prepared.algorithm->Run(task, context));

  // FAILED_PRECONDITION (a device over its capacity) is the task's infeasibility, not a bug.
  SHARDPLAN_RETURN_IF_ERROR(PlannerBug(info.name, ValidatePlan(task, plan)));
  SHARDPLAN_RETURN_IF_ERROR(PlannerBug(info.name, EvaluatePlan(task, *prepared.model, plan)));

  plan.algorithm = info.name;
  // Beside what the algorithm reports under dotted keys (plan.h), never in their place.
  for (const auto& [name, value] : prepared.params.values()) plan.parameters[name] = value;
  plan.seed = prepared.seed;
  plan.stats.planning_time_ms =
      std::chrono::duration<double, std::milli>(StopSignal::Clock::now() - start).count();
  Report(options.on_progress, absl::StrCat(info.name, ": done, cost ", plan.cost_ms, " ms"), 1.0);
  return plan;
}

absl::StatusOr<Plan> PlanTask(const Algorithm& algorithm, const Task& task,
                              const CostModel& model, const PlanTaskOptions& options) {
  const auto start = StopSignal::Clock::now();
  SHARDPLAN_ASSIGN_OR_RETURN(
      PreparedPlanning prepared,
      PreparePlanning(algorithm, task, model, options.params, options.seed, options.policy));
  SHARDPLAN_ASSIGN_OR_RETURN(
      Plan plan,
      RunPlanning(prepared, task, {.stop = options.stop, .on_progress = options.on_progress}));
  // The preparation is part of the planning time, as it always was.
  plan.stats.planning_time_ms =
      std::chrono::duration<double, std::milli>(StopSignal::Clock::now() - start).count();
  return plan;
}

}  // namespace shardplan
