#ifndef SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

struct PlanTaskOptions {
  std::map<std::string, std::string> params;  // as the caller gave them
  uint64_t seed = 0;
  const StopSignal* stop = nullptr;  // null: never stops early
  std::function<void(const PlanningProgress&)> on_progress;
};

// The planning pipeline every caller uses (server, CLI tools, benchmarks):
// check the model supports the task, resolve parameters, honour the task's own time limit,
// run the planner, validate the plan (ValidatePlan), evaluate it (EvaluatePlan), and record
// algorithm, parameters, seed, cost-model id and planning time in it.
// The task must already have passed ValidateTask.
absl::StatusOr<Plan> PlanTask(const Algorithm& planner, const Task& task, const CostModel& model,
                              const PlanTaskOptions& options);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_PLAN_TASK_H_
