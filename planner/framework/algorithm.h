#ifndef SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/policy.h"
#include "planner/domain/task.h"
#include "planner/framework/parameters.h"
#include "planner/framework/stop_signal.h"

namespace shardplan {

// What ListAlgorithms shows of an algorithm.
struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::vector<ShardingType> sharding_types;  // what its plans contain
  bool uses_cost_model = false;
  // Its plans are routed row layouts (replicated row groups, rows by rank: FlexShard's tiers),
  // which only models that cost row layouts cost (CostModel::CostsRowLayouts); the server's
  // default model for it is one of those.
  bool plans_row_layouts = false;
  // Plans with a trained policy (planner/domain/policy.h) that the caller resolves: the
  // algorithm then declares a string parameter "policy" ("", "name" or "name@version"; the
  // server resolves it and records the exact name@version in the plan's parameters).
  bool uses_policy = false;
};

// The "policy" parameter every algorithm with uses_policy declares.
inline ParamSpec PolicyParamSpec() {
  ParamSpec spec;
  spec.name = "policy";
  spec.type = ParamType::kString;
  spec.default_value = "";
  spec.description =
      "The trained policy: \"name\" or \"name@version\"; empty lets the server choose the "
      "newest one trained on the task's hardware.";
  return spec;
}

// A progress report from a running algorithm (streamed by WatchPlan).
struct PlanningProgress {
  std::string message;     // e.g. "placing table 12/40"
  double fraction = 0.0;   // 0..1, best effort
};

// Everything a planning run may consult besides the task.
struct PlanningContext {
  const CostModel* cost_model = nullptr;  // never null
  const Policy* policy = nullptr;         // never null when info().uses_policy, else null
  ParamValues params;                     // resolved against the algorithm's specs
  uint64_t seed = 0;
  const StopSignal* stop = nullptr;       // never null
  std::function<void(const PlanningProgress&)> on_progress;  // may be empty
};

// A planning algorithm. Implementations are stateless and Run is safe to call concurrently.
// Run returns the shards only (tables[]); PlanTask validates and evaluates them.
// Errors: FAILED_PRECONDITION for infeasible tasks (naming the table and the memory it needs),
// CANCELLED / DEADLINE_EXCEEDED when `context.stop` fires.
class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual const AlgorithmInfo& info() const = 0;
  virtual absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const = 0;

  // For algorithms that use a policy: OK when this algorithm can run `policy` (its algorithm
  // and architecture, every tensor it reads with its shape, every constant), else
  // FAILED_PRECONDITION naming the policy and what is wrong. Loaders call it before serving a
  // policy, so a request never reaches Run with a policy its algorithm does not understand.
  virtual absl::Status CheckPolicy(const Policy& policy) const {
    return absl::FailedPreconditionError(
        absl::StrCat("policy ", policy.id(), ": algorithm ", info().name, " uses no policy"));
  }
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_H_
