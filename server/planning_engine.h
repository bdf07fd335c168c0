#ifndef SHARDPLAN_SERVER_PLANNING_ENGINE_H_
#define SHARDPLAN_SERVER_PLANNING_ENGINE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/parameters.h"
#include "planner/framework/stop_signal.h"
#include "server/job_manager.h"
#include "server/plan_cache.h"
#include "server/planning_request.h"
#include "server/planning_result.h"

namespace shardplan {

class ServerMetrics;

struct PlanningEngineOptions {
  // The algorithm of requests that name none.
  std::string default_algorithm = "neuroshard";
  // The model of requests that name none: "name" or "name@version"; "" chooses per task the
  // newest loaded model that covers it (ChooseModel), else the registry's default.
  std::string default_model;
  TaskLimits limits;
};

// Transport-independent planning: validation, canonicalisation, algorithm, model and policy
// resolution, the plan cache and PlanTask. Thread-safe; Plan and job workers share one engine.
// Error messages name the request field (task.*, algorithm, parameters.*, model, plan.*).
class PlanningEngine {
 public:
  // Every pointer must outlive the engine; `cache` and `metrics` may be null, and so may
  // `policies` (then algorithms that plan with a trained policy are refused).
  PlanningEngine(const AlgorithmRegistry* algorithms, const ModelRegistry* models,
                 const PolicyRegistry* policies, PlanCache* cache, ServerMetrics* metrics,
                 PlanningEngineOptions options);
  PlanningEngine(const AlgorithmRegistry* algorithms, const ModelRegistry* models, PlanCache* cache,
                 ServerMetrics* metrics, PlanningEngineOptions options)
      : PlanningEngine(algorithms, models, nullptr, cache, metrics, std::move(options)) {}

  // Checks and resolves a request without planning, once: validates and canonicalises the task,
  // finds the algorithm, resolves its parameters, chooses the model (which confirms it can cost
  // the task), for an algorithm that plans with a trained policy resolves parameters["policy"]
  // (ChoosePolicy), and computes the cache key of the request as sent: the histograms a model
  // reads are imputed for tables sent without one only when a plan is computed (Compute), so a
  // cache hit costs no imputation. INVALID_ARGUMENT / RESOURCE_EXHAUSTED for a bad task (an unknown
  // task.topology.hardware among them), INVALID_ARGUMENT for an unknown algorithm or bad
  // parameters, NOT_FOUND for an unknown model, the model's own error when it cannot cost the
  // task; "parameters.policy: ..." errors as ChoosePolicy's. A table larger than every device:
  // with no algorithm named, one that can hold it replaces a default that cannot (the
  // selection says why); FAILED_PRECONDITION (CheckOversizedTables', with the algorithms and
  // models that would plan it) when the named algorithm or model cannot.
  absl::StatusOr<PreparedRequest> Prepare(PlanningRequest request) const;

  // CachedResult, else Compute; then AnnotatePlan.
  absl::StatusOr<PlanningResult> Run(const PreparedRequest& request, const StopSignal& stop,
                                     const JobManager::ProgressFn& on_progress) const;

  // The cached plan (cache_hit set); nullopt on a miss, without a cache, or when the request
  // bypasses the cache. Counts the lookup in the metrics.
  std::optional<PlanningResult> CachedResult(const PreparedRequest& request) const;

  // Plans (RunPlanning on what Prepare resolved) whatever the cache holds, then caches the plan
  // unless the search was cut short. FAILED_PRECONDITION for infeasible tasks, CANCELLED /
  // DEADLINE_EXCEEDED when `stop` fires.
  absl::StatusOr<PlanningResult> Compute(const PreparedRequest& request, const StopSignal& stop,
                                         const JobManager::ProgressFn& on_progress) const;

  // Caches `plan` as the answer to `request` with what its computation found about imputed
  // histograms (`imputed_table_warnings`), unless the search was cut short (anytime) or there is
  // no cache (a request that bypasses it refreshes it). Compute caches what it plans; a plan the
  // store kept is cached by its caller, so that only the first identical request after a restart
  // pays the imputation that ImputedTableWarnings costs.
  void CachePlan(const PreparedRequest& request, const Plan& plan,
                 const std::vector<TableWarning>& imputed_table_warnings) const;

  // The warnings of an answer to `request` whose plan's computation found
  // `imputed_table_warnings` (PlanningResult::imputed_table_warnings): the request's own, then
  // those, naming the tables at the request's positions.
  static std::vector<PlanWarning> WarningsFor(
      const PreparedRequest& request, const std::vector<TableWarning>& imputed_table_warnings);

  // What computing a plan for `request` finds about the tables whose histogram it imputes, for
  // an answer whose plan came without them (the plan store's): imputes them to find out, until
  // `stop` (may be null) fires.
  absl::StatusOr<std::vector<TableWarning>> ImputedTableWarnings(const PreparedRequest& request,
                                                                 const StopSignal* stop) const;

  // What an answer for `task` (the request's, in its table order) adds to its plan, once per
  // answer, whether the plan was computed, cached or stored: the ids of its replicated hot rows
  // where the task sent top_ids (AttachHotRowIds), and the plan's own warnings
  // (TORCHREC_MEMORY, HOT_ROW_IDS_INCOMPLETE, SEQUENCE_BUFFERS), counted in the metrics.
  void AnnotatePlan(const Task& task, PlanningResult& result) const;

  // Recomputes the figures of `plan` (its tables[].shards) for `task` under `model` (as
  // ChooseModel resolves it), after ValidateTask and ValidatePlan. The result carries the
  // selection and the imputed histograms' warnings; cost_kind "simulated". With `stop`, it
  // stops between its stages (validation, model choice, imputation, evaluation) with
  // CANCELLED or DEADLINE_EXCEEDED once `stop` fires.
  absl::StatusOr<PlanningResult> Evaluate(const Task& task, Plan plan, const std::string& model,
                                          const StopSignal* stop = nullptr) const;

  // Scores `plan` for `task` on the ground truth `spec` names, "sim:<profile>" (the cluster
  // simulator, noise off, with the task's device count; docs/simulator.md): the per-device
  // figures are measured, not predicted. cost_kind "ground_truth", cost_model the backend's
  // hardware profile ("sim-rtx2080ti"). INVALID_ARGUMENT ("ground_truth: ...") for a malformed
  // spec or an unknown profile; tables without a histogram are simulated with the typical one
  // (TypicalAccessBins), with a warning each.
  // `stop` as Evaluate's.
  absl::StatusOr<PlanningResult> EvaluateOnGroundTruth(const Task& task, Plan plan,
                                                       const std::string& spec,
                                                       const StopSignal* stop = nullptr) const;

  // The algorithm called `name`; INVALID_ARGUMENT "algorithm: unknown algorithm ..." otherwise.
  absl::StatusOr<const Algorithm*> FindAlgorithm(const std::string& name) const;

  // The model `spec` names, once it confirmed it can cost `task`; for "" the server's choice
  // (PlanningEngineOptions::default_model, else NewestCoveringModel, else analytic@1) and, in
  // `reason`, why it was chosen. With `algorithm`, the server's choice can also cost a type of
  // it that holds each table larger than every device, and for an algorithm that plans with
  // its own estimator (!uses_cost_model) every type it places; `reason` names the types a
  // chosen model leaves out. With `plan` (EvaluatePlan's), the server's choice costs every table
  // of it (CheckModelCostsPlan): a plan of row-level or routed layouts gets a model that costs
  // them, else analytic@1.
  absl::StatusOr<ResolvedModel> ChooseModel(const std::string& spec, const Task& task,
                                            std::string* reason,
                                            const AlgorithmInfo* algorithm = nullptr,
                                            const Plan* plan = nullptr) const;

  // The trained policy a request for `algorithm` plans with: `spec` is parameters["policy"]
  // as the client gave it ("", "name" or "name@version", PolicyRegistry::Resolve), and a
  // policy trained on `model`'s hardware profile is preferred when the server chooses (then
  // `reason` says which and why). Errors name parameters.policy: NOT_FOUND for a name or
  // version not loaded, FAILED_PRECONDITION when none of the algorithm's is loaded or the one
  // named is another algorithm's, INVALID_ARGUMENT for a malformed spec.
  absl::StatusOr<ResolvedPolicy> ChoosePolicy(const std::string& algorithm, const std::string& spec,
                                              const ResolvedModel& model,
                                              std::string* reason) const;

  const PlanningEngineOptions& options() const { return options_; }

 private:
  // ValidateTask under the server's limits; errors name "task.<field>".
  absl::Status CheckTask(const Task& task) const;
  // CheckTask, then ValidatePlan of `plan` for it (errors name "plan.<field>").
  absl::Status CheckTaskAndPlan(const Task& task, const Plan& plan) const;
  // The model `spec` names ("model: ..." errors), once it confirmed it can cost `task`.
  absl::StatusOr<ResolvedModel> ResolveModelFor(const std::string& spec, const Task& task) const;
  // The newest loaded model (by creation time) of the task's hardware (any, when it names
  // none) whose comm models cover the task's device count and that can cost it (for
  // `algorithm`, when given, as ChooseModel says); nullopt when none does. Bundles without comm
  // models (cpu data) only cover single-device tasks: they know no interconnect. With `plan`,
  // the model must cost every table of it (CheckModelCostsPlan). `refused` gets
  // why the newest model that covers the device count cannot cost the task (e.g. a table
  // allowing only ROW_WISE), empty when none was refused.
  std::optional<ResolvedModel> NewestCoveringModel(const Task& task, const AlgorithmInfo* algorithm,
                                                   std::string* refused,
                                                   const Plan* plan = nullptr) const;
  // The first registered algorithm (one that plans with the cost model first; none that needs
  // a trained policy) that places a type holding every table of `task` larger than any device;
  // null when none does.
  const Algorithm* AlgorithmThatHolds(const Task& task) const;
  // `status` (CheckOversizedTables') with the algorithms and models that would plan the task.
  absl::Status OversizedRefusal(const absl::Status& status, const Task& task) const;
  bool Cacheable(const PreparedRequest& request) const;
  // `plan` as the answer to `request`: with its request hash, selection and the request's
  // warnings (Run and the service add the plan's own: AnnotatePlan).
  static PlanningResult ResultFor(const PreparedRequest& request, Plan plan,
                                  std::vector<TableWarning> imputed_table_warnings);
  // The task a plan for `request` is computed on: its canonical task with the typical
  // histogram of each table sent without one, where the model reads histograms (counted in
  // shardplan_imputed_histograms_total); `imputed_table_warnings` gets those tables' warnings.
  // Stops with `stop`'s reason once it fires (`stop` may be null).
  absl::StatusOr<Task> TaskToCost(const PreparedRequest& request,
                                  std::vector<TableWarning>* imputed_table_warnings,
                                  const StopSignal* stop) const;

  const AlgorithmRegistry* const algorithms_;
  const ModelRegistry* const models_;
  const PolicyRegistry* const policies_;  // may be null
  PlanCache* const cache_;
  ServerMetrics* const metrics_;
  const PlanningEngineOptions options_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_ENGINE_H_
