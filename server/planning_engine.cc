#include "server/planning_engine.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/status_prefix.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "groundtruth/sim/sim_backend.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/hot_row_ids.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"
#include "planner/estimators/typical_access.h"
#include "planner/framework/oversized_tables.h"
#include "planner/framework/plan_task.h"
#include "server/cache_key.h"
#include "server/costing_warnings.h"
#include "server/hardware.h"
#include "server/metrics.h"
#include "server/oversized_alternatives.h"

namespace shardplan {
namespace {

// OK while the work `stop` watches may go on (always without one).
absl::Status GoOn(const StopSignal* stop) {
  return stop == nullptr ? absl::OkStatus() : stop->Check();
}

// ValidatePlan names plan fields ("tables[0].table: ...") for malformed plans and devices
// ("device 1: needs ...") for infeasible ones.
absl::Status PlanError(const absl::Status& status) {
  return WithPrefix(status,
                    status.code() == absl::StatusCode::kInvalidArgument ? "plan." : "plan: ");
}

// "a100-sxm4, a100-sxm4-roce, h100-sxm, rtx2080ti": the simulator's profiles, for error messages.
std::string SimProfileNames() {
  std::vector<std::string> names;
  for (const HardwareProfile& profile : HardwareProfiles()) names.push_back(profile.name);
  return absl::StrJoin(names, ", ");
}

// `message` as a clause of a selection, whose parts "; " separates (the CLI prints one per line).
std::string Clause(absl::string_view message) {
  return absl::StrReplaceAll(message, {{"; ", ", "}});
}

// The sharding types `algorithm` places, some table of `task` allows and `model` cannot cost
// ("DATA_PARALLEL, ROW_WISE"): what the algorithm leaves out under that model; "" when none.
std::string TypesLeftOut(const AlgorithmInfo& algorithm, const CostModel& model, const Task& task) {
  std::vector<std::string> names;
  for (ShardingType type : algorithm.sharding_types) {
    if (model.CostsShardingType(type)) continue;
    const bool allowed = std::any_of(task.tables.begin(), task.tables.end(), [&](const Table& t) {
      return t.allowed_sharding_types.empty() ||
             std::find(t.allowed_sharding_types.begin(), t.allowed_sharding_types.end(), type) !=
                 t.allowed_sharding_types.end();
    });
    if (allowed) names.push_back(ShardingTypeName(type));
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace

PlanningEngine::PlanningEngine(const AlgorithmRegistry* algorithms, const ModelRegistry* models,
                               const PolicyRegistry* policies, PlanCache* cache,
                               ServerMetrics* metrics, PlanningEngineOptions options)
    : algorithms_(algorithms),
      models_(models),
      policies_(policies),
      cache_(cache),
      metrics_(metrics),
      options_(std::move(options)) {}

absl::StatusOr<const Algorithm*> PlanningEngine::FindAlgorithm(const std::string& name) const {
  std::vector<std::string> known;
  for (const Algorithm* algorithm : algorithms_->List()) {
    if (algorithm->info().name == name) return algorithm;
    known.push_back(algorithm->info().name);
  }
  return absl::InvalidArgumentError(absl::StrCat("algorithm: unknown algorithm ", QuotedName(name),
                                                 "; known: ", absl::StrJoin(known, ", ")));
}

absl::Status PlanningEngine::CheckTask(const Task& task) const {
  return WithPrefix(ValidateTask(task, options_.limits), "task.");
}

absl::StatusOr<ResolvedModel> PlanningEngine::ResolveModelFor(const std::string& spec,
                                                              const Task& task) const {
  absl::StatusOr<ResolvedModel> model = models_->Resolve(spec);
  if (!model.ok()) return WithPrefix(model.status(), "model: ");
  absl::Status supported = model->model->CheckSupports(task);
  if (supported.ok()) supported = CheckCostsAllowedTypes(*model->model, task);
  if (!supported.ok()) {
    return WithPrefix(supported, absl::StrCat("model ", model->model->id(), ": "));
  }
  return model;
}

std::optional<ResolvedModel> PlanningEngine::NewestCoveringModel(const Task& task,
                                                                 const AlgorithmInfo* algorithm,
                                                                 std::string* refused,
                                                                 const Plan* plan) const {
  const int32_t devices = task.topology.num_devices();
  const std::string& hardware = task.topology.hardware;
  std::optional<ResolvedModel> newest;
  std::string refused_created;
  for (const ModelRegistry::Entry& entry : models_->List()) {
    const ModelManifest& manifest = entry.manifest;
    if (manifest.kind == "analytic") continue;  // the fallback, not a candidate
    // A task that names its hardware gets a model of that hardware or none.
    if (!hardware.empty() && HardwareOf(manifest) != hardware) continue;
    // Comm models for this device count (or device-set ones, for any count); a model with zero
    // comm costs would ignore the interconnect.
    const bool knows_interconnect =
        manifest.costs_interconnect &&
        (manifest.device_counts.empty() ||
         std::find(manifest.device_counts.begin(), manifest.device_counts.end(), devices) !=
             manifest.device_counts.end());
    if (devices > 1 && !knows_interconnect) continue;
    if (newest && std::tie(manifest.created, manifest.name) <
                      std::tie(newest->manifest.created, newest->manifest.name)) {
      continue;  // List() is oldest version first, so a tie on both goes to the later version
    }
    absl::StatusOr<ResolvedModel> model = models_->Resolve(manifest.id());
    if (!model.ok()) continue;
    // A model that would extrapolate its comm costs to this layout (device-set comm models
    // outside their trained layouts, e.g. one device) does not cover it.
    if (!model->model->OutsideTrainedTopology(task.topology).empty()) continue;
    absl::Status costs = model->model->CheckSupports(task);
    if (costs.ok()) costs = CheckCostsAllowedTypes(*model->model, task);
    // A table larger than every device needs a type that holds it, which the model must cost.
    if (costs.ok() && algorithm != nullptr) {
      costs = CheckOversizedTables(*algorithm, model->model.get(), task);
    }
    // An algorithm that plans with its own estimator (torchrec) gains nothing from a learned
    // model but would lose the types it cannot cost: it gets a model that costs them all.
    if (costs.ok() && algorithm != nullptr && !algorithm->uses_cost_model) {
      if (const std::string left_out = TypesLeftOut(*algorithm, *model->model, task);
          !left_out.empty()) {
        costs = absl::FailedPreconditionError(absl::StrCat(
            "cannot cost ", left_out, ", which ", algorithm->name,
            " would place (it plans with its own estimator, so the model only takes types away)"));
      }
    }
    if (costs.ok() && algorithm != nullptr && algorithm->plans_row_layouts &&
        !model->model->CostsRowLayouts()) {
      costs = absl::FailedPreconditionError(absl::StrCat(
          "cannot cost routed row layouts, which ", algorithm->name, " plans"));
    }
    if (costs.ok() && plan != nullptr) costs = CheckModelCostsPlan(task, *plan, *model->model);
    if (!costs.ok()) {  // e.g. a table that allows only ROW_WISE under a column-level model
      // The newest refusal says why: the model a user would have expected.
      if (refused_created.empty() || manifest.created >= refused_created) {
        refused_created = manifest.created;
        *refused = absl::StrCat(manifest.id(), ": ", Clause(costs.message()));
      }
      continue;
    }
    newest = *std::move(model);
  }
  return newest;
}

absl::StatusOr<ResolvedModel> PlanningEngine::ChooseModel(const std::string& spec, const Task& task,
                                                          std::string* reason,
                                                          const AlgorithmInfo* algorithm,
                                                          const Plan* plan) const {
  if (!spec.empty()) return ResolveModelFor(spec, task);
  if (!options_.default_model.empty()) {
    absl::StatusOr<ResolvedModel> model = ResolveModelFor(options_.default_model, task);
    if (model.ok()) {
      *reason = absl::StrCat("model: ", model->manifest.id(),
                             ", the server's default_model (no model named)");
    }
    return model;
  }
  const int32_t devices = task.topology.num_devices();
  const std::string& hardware = task.topology.hardware;
  // "8 devices" or "8 devices of rtx2080ti".
  const std::string covered = absl::StrCat(devices, devices == 1 ? " device" : " devices",
                                           hardware.empty() ? "" : absl::StrCat(" of ", hardware));
  std::string refused;
  if (std::optional<ResolvedModel> newest = NewestCoveringModel(task, algorithm, &refused, plan)) {
    *reason = absl::StrCat("model: ", newest->manifest.id(),
                           ", the newest loaded model that covers ", covered, " (no model named");
    const std::string assumed = HardwareOf(newest->manifest);
    if (hardware.empty() && !assumed.empty()) {
      absl::StrAppend(reason, ", and the task names no hardware, so its costs assume ", assumed);
    }
    absl::StrAppend(reason, ")");
    if (algorithm != nullptr) {
      if (const std::string left_out = TypesLeftOut(*algorithm, *newest->model, task);
          !left_out.empty()) {
        absl::StrAppend(reason, "; it cannot cost ", left_out, ", which ", algorithm->name,
                        " leaves out (analytic@1 costs them: --model analytic@1)");
      }
    }
    return *std::move(newest);
  }
  absl::StatusOr<ResolvedModel> fallback = ResolveModelFor("", task);
  if (fallback.ok()) {
    *reason =
        refused.empty()
            ? absl::StrCat("model: ", fallback->manifest.id(), ", as no loaded model covers ",
                           covered, " (no model named)")
            : absl::StrCat("model: ", fallback->manifest.id(), ", as no loaded model that covers ",
                           covered, " can cost the task (", refused, ") (no model named)");
  }
  return fallback;
}

absl::StatusOr<ResolvedPolicy> PlanningEngine::ChoosePolicy(const std::string& algorithm,
                                                            const std::string& spec,
                                                            const ResolvedModel& model,
                                                            std::string* reason) const {
  // What an operator does about a missing policy (docs/policies.md).
  const std::string remedy = absl::StrCat(
      "; train one (shardplan-offline policy train-", algorithm,
      ") into the server's models_dir, which it loads on its next scan or on ReloadModels "
      "(docs/policies.md)");
  if (policies_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("parameters.policy: algorithm ", algorithm,
                     " plans with a trained policy, and this server serves none", remedy));
  }
  absl::StatusOr<ResolvedPolicy> policy =
      policies_->Resolve(spec, algorithm, model.manifest.hardware_profile, reason);
  if (policy.ok()) return policy;
  if (spec.empty() && policy.status().code() == absl::StatusCode::kFailedPrecondition) {
    return absl::FailedPreconditionError(
        absl::StrCat("parameters.policy: ", policy.status().message(), remedy));
  }
  return WithPrefix(policy.status(), "parameters.policy: ");
}

absl::Status PlanningEngine::OversizedRefusal(const absl::Status& status, const Task& task) const {
  return absl::Status(
      status.code(),
      absl::StrCat(status.message(), "; ", OversizedAlternatives(task, *algorithms_, *models_)));
}

const Algorithm* PlanningEngine::AlgorithmThatHolds(const Task& task) const {
  const Algorithm* found = nullptr;
  for (const Algorithm* algorithm : algorithms_->List()) {
    const AlgorithmInfo& info = algorithm->info();
    if (info.uses_policy || !CheckOversizedTables(info, nullptr, task).ok()) continue;
    // One that plans with the cost model first: learned costs then still decide the plan.
    if (info.uses_cost_model) return algorithm;
    if (found == nullptr) found = algorithm;
  }
  return found;
}

absl::StatusOr<PreparedRequest> PlanningEngine::Prepare(PlanningRequest request) const {
  if (absl::Status valid = CheckTask(request.task); !valid.ok()) return valid;
  if (absl::Status known = CheckHardware(request.task.topology.hardware, *models_); !known.ok()) {
    return known;
  }
  // In request order, before canonicalisation: the warnings name the request's fields.
  const std::vector<std::pair<size_t, std::string>> without_bins =
      TablesWithoutHistogram(request.task);

  PreparedRequest prepared;
  prepared.task = CanonicalTask(request.task);
  prepared.asked = std::move(request);
  const PlanningRequest& asked = prepared.asked;
  std::vector<std::string> selection;
  const std::string& name = asked.algorithm.empty() ? options_.default_algorithm : asked.algorithm;
  absl::StatusOr<const Algorithm*> algorithm = FindAlgorithm(name);
  if (!algorithm.ok()) return algorithm.status();
  // A table larger than every device needs an algorithm that places shards holding it (when
  // no type can, the tables outgrow all devices together: RunPlanning says so).
  // On the request's own task, so that refusals name its fields in its order.
  const std::vector<OversizedTable> oversized = OversizedTables(asked.task);
  const bool splittable = std::all_of(oversized.begin(), oversized.end(),
                                      [](const OversizedTable& t) { return !t.holders.empty(); });
  absl::Status holds = splittable ? CheckOversizedTables((*algorithm)->info(), nullptr, asked.task)
                                  : absl::OkStatus();
  if (!holds.ok()) {
    const Algorithm* fallback = asked.algorithm.empty() ? AlgorithmThatHolds(asked.task) : nullptr;
    if (fallback == nullptr) return OversizedRefusal(holds, asked.task);
    algorithm = fallback;
    selection.push_back(absl::StrCat("algorithm: ", fallback->info().name,
                                     ", as the server's default ", name, " cannot plan the task (",
                                     Clause(holds.message()), ") (no algorithm named)"));
  } else if (asked.algorithm.empty()) {
    selection.push_back(
        absl::StrCat("algorithm: ", name, ", the server's default (no algorithm named)"));
  }
  // Checked before the model is resolved, so a bad parameter is reported first; PreparePlanning
  // resolves them again (microseconds) with the policy.
  absl::StatusOr<ParamValues> params = ResolveParams((*algorithm)->info().params, asked.params);
  if (!params.ok()) return params.status();  // already "parameters.<name>: ..."
  std::string model_reason;
  // ChooseModel confirms the model can cost the task, in errors that name the model (the check
  // PreparePlanning repeats below then passes).
  absl::StatusOr<ResolvedModel> model =
      ChooseModel(asked.model, prepared.task, &model_reason, &(*algorithm)->info());
  if (!model.ok()) return model.status();
  prepared.model = *std::move(model);
  if (!model_reason.empty()) selection.push_back(std::move(model_reason));
  // A model the client or the operator named must cost a type that holds each such table.
  if (splittable) {
    if (absl::Status costed =
            CheckOversizedTables((*algorithm)->info(), prepared.model.model.get(), asked.task);
        !costed.ok()) {
      return OversizedRefusal(costed, asked.task);
    }
  }
  if ((*algorithm)->info().uses_policy) {
    // The raw value the client gave: "" leaves the choice to the server.
    const auto given = asked.params.find("policy");
    std::string policy_reason;
    absl::StatusOr<ResolvedPolicy> policy =
        ChoosePolicy((*algorithm)->info().name, given == asked.params.end() ? "" : given->second,
                     prepared.model, &policy_reason);
    if (!policy.ok()) return policy.status();
    prepared.policy = *std::move(policy);
    if (!policy_reason.empty()) selection.push_back(std::move(policy_reason));
  }
  prepared.selection = absl::StrJoin(selection, "; ");
  // Checks the policy against the algorithm and records its exact name@version in the
  // resolved "policy" parameter, hence in the plan and the cache key. The request holds the
  // policy's shared_ptr, so a reload never frees it under a queued or running plan.
  absl::StatusOr<PreparedPlanning> planning =
      PreparePlanning(**algorithm, prepared.task, *prepared.model.model, asked.params, asked.seed,
                      prepared.policy.policy.get());
  if (!planning.ok()) return planning.status();
  prepared.planning = *std::move(planning);
  // Histograms are imputed only when a plan is computed (TaskToCost): the cache key is of the
  // request as sent, so a cache hit costs no imputation.
  const bool imputes = prepared.model.model->ReadsAccessHistograms();
  if (imputes) {
    prepared.warnings = ImputedHistogramWarnings(without_bins, prepared.model.manifest.id());
  }
  for (PlanWarning& warning :
       OutsideTrainingWarnings(asked.task, *prepared.model.model, prepared.model.manifest.id(),
                               /*skip_tables_without_histogram=*/imputes)) {
    prepared.warnings.push_back(std::move(warning));
  }
  if (asked.model.empty()) {  // the server chose the model, hence the hardware
    if (std::optional<PlanWarning> assumed = HardwareAssumedWarning(
            asked.task.topology.hardware, prepared.model.manifest, *models_)) {
      prepared.warnings.push_back(*std::move(assumed));
    }
  }
  if (metrics_ != nullptr) metrics_->RecordPlanWarnings(prepared.warnings);
  prepared.cache_key = PlanCacheKey({.task = &prepared.task,
                                     .algorithm = (*algorithm)->info().name,
                                     .resolved_params = prepared.planning.params.values(),
                                     .seed = asked.seed,
                                     .model_id = prepared.model.manifest.id(),
                                     .model_content = prepared.model.manifest.content_sha256,
                                     .policy_content = prepared.policy.manifest.content_sha256});
  return prepared;
}

bool PlanningEngine::Cacheable(const PreparedRequest& request) const {
  return cache_ != nullptr && cache_->capacity_bytes() > 0 && !request.cache_key.empty();
}

PlanningResult PlanningEngine::ResultFor(const PreparedRequest& request, Plan plan,
                                         std::vector<TableWarning> imputed_table_warnings) {
  PlanningResult result;
  result.plan = std::move(plan);
  result.request_hash = request.cache_key;
  // This request's: an identical request that named the model shares the plan, not the reason.
  result.selection = request.selection;
  result.imputed_table_warnings = std::move(imputed_table_warnings);
  result.warnings = WarningsFor(request, result.imputed_table_warnings);
  return result;
}

std::vector<PlanWarning> PlanningEngine::WarningsFor(
    const PreparedRequest& request, const std::vector<TableWarning>& imputed_table_warnings) {
  std::vector<PlanWarning> warnings = request.warnings;
  for (PlanWarning& warning : AtRequestPositions(request.asked.task, imputed_table_warnings)) {
    warnings.push_back(std::move(warning));
  }
  return warnings;
}

absl::StatusOr<Task> PlanningEngine::TaskToCost(const PreparedRequest& request,
                                                std::vector<TableWarning>* imputed_table_warnings,
                                                const StopSignal* stop) const {
  Task task = request.task;
  if (!request.model.model->ReadsAccessHistograms()) return task;
  int64_t imputed = 0;
  absl::StatusOr<std::vector<TableWarning>> warnings = ImputeHistograms(
      task, request.model.model.get(), request.model.manifest.id(), &imputed, stop);
  if (metrics_ != nullptr) metrics_->RecordImputedHistograms(imputed);
  if (!warnings.ok()) return warnings.status();
  *imputed_table_warnings = *std::move(warnings);
  return task;
}

absl::StatusOr<std::vector<TableWarning>> PlanningEngine::ImputedTableWarnings(
    const PreparedRequest& request, const StopSignal* stop) const {
  std::vector<TableWarning> warnings;
  absl::StatusOr<Task> costed = TaskToCost(request, &warnings, stop);
  if (!costed.ok()) return costed.status();
  return warnings;
}

namespace {

// HOT_ROW_IDS_INCOMPLETE, one per table whose replicated ranks reach past its top_ids.
std::vector<PlanWarning> HotRowIdsWarnings(const std::vector<HotRowIdsShortfall>& gaps) {
  std::vector<PlanWarning> warnings;
  for (const HotRowIdsShortfall& gap : gaps) {
    warnings.push_back(PlanWarning{
        .code = std::string(kHotRowIdsIncomplete),
        .field = absl::StrCat("task.tables[", gap.table_index, "].access_profile.top_k.top_ids"),
        .message =
            absl::StrCat("table \"", gap.table, "\" replicates ranks [0, ", gap.replicated_end,
                         ") but its profile gave ids for the top ", gap.known_ids,
                         ": row_layout.hot_row_ids lists those; send top_ids for ",
                         gap.replicated_end, " ranks to get every replicated row's id")});
  }
  return warnings;
}

// SEQUENCE_BUFFERS for the first device whose ledger and sequence buffers pass its capacity.
std::optional<PlanWarning> SequenceBuffersWarning(const std::vector<DeviceCost>& devices) {
  for (const DeviceCost& device : devices) {
    const int64_t needed = device.memory_bytes + device.sequence_buffer_bytes;
    if (device.sequence_buffer_bytes == 0 || needed <= device.memory_capacity_bytes) continue;
    return PlanWarning{
        .code = std::string(kSequenceBuffers),
        .field = "task.topology",
        .message = absl::StrCat(
            "device ", device.device, " holds ", FormatGiB(device.memory_bytes),
            " and its sequence tables' all-to-all needs ", FormatGiB(device.sequence_buffer_bytes),
            " of buffers in a forward pass: ", FormatGiB(needed), " in all, over its ",
            FormatGiB(device.memory_capacity_bytes),
            " (the planners budget the ledger, not these buffers: docs/architecture.md, "
            "\"Memory ledger\")")};
  }
  return std::nullopt;
}

// TORCHREC_MEMORY when the plan fits the task's capacities but not what TorchRec would leave.
std::optional<PlanWarning> TorchRecMemoryWarning(const Task& task,
                                                 const std::vector<DeviceCost>& devices) {
  const std::optional<ReservationShortfall> shortfall =
      TorchRecReservationShortfall(task, devices);
  if (!shortfall.has_value()) return std::nullopt;
  return PlanWarning{
      .code = std::string(kTorchRecMemory),
      .field = "task.memory.storage_reservation",
      .message = absl::StrCat(
          "device ", shortfall->device, " holds ", FormatGiB(shortfall->bytes), " of its ",
          FormatGiB(shortfall->capacity_bytes),
          ": the plan fits here, but TorchRec holds back 15% of each device "
          "(HeuristicalStorageReservation) and would leave it ",
          FormatGiB(shortfall->usable_bytes),
          "; plan with memory.storage_reservation 0.15 and the job's memory.optimizer for "
          "TorchRec's accounting (docs/design.md, \"Memory\")")};
}

}  // namespace

void PlanningEngine::AnnotatePlan(const Task& task, PlanningResult& result) const {
  std::vector<PlanWarning> warnings = HotRowIdsWarnings(AttachHotRowIds(task, result.plan));
  for (std::optional<PlanWarning> warning : {SequenceBuffersWarning(result.plan.devices),
                                             TorchRecMemoryWarning(task, result.plan.devices)}) {
    if (warning.has_value()) warnings.push_back(*std::move(warning));
  }
  if (warnings.empty()) return;
  if (metrics_ != nullptr) metrics_->RecordPlanWarnings(warnings);
  for (PlanWarning& warning : warnings) result.warnings.push_back(std::move(warning));
}

absl::StatusOr<PlanningResult> PlanningEngine::Run(
    const PreparedRequest& request, const StopSignal& stop,
    const JobManager::ProgressFn& on_progress) const {
  std::optional<PlanningResult> cached = CachedResult(request);
  absl::StatusOr<PlanningResult> result =
      cached.has_value() ? *std::move(cached) : Compute(request, stop, on_progress);
  if (result.ok()) {
    if (metrics_ != nullptr) {
      metrics_->RecordPlanWarnings(
          AtRequestPositions(request.asked.task, result->imputed_table_warnings));
    }
    AnnotatePlan(request.asked.task, *result);
  }
  return result;
}

std::optional<PlanningResult> PlanningEngine::CachedResult(const PreparedRequest& request) const {
  if (!Cacheable(request) || request.asked.bypass_cache) return std::nullopt;
  std::optional<PlanCache::Hit> cached = cache_->LookupEntry(request.cache_key);
  if (metrics_ != nullptr) metrics_->RecordCacheLookup(cached.has_value());
  if (!cached.has_value()) return std::nullopt;
  PlanningResult result = ResultFor(request, *cached->plan, *cached->imputed_table_warnings);
  result.cache_hit = true;
  return result;
}

absl::StatusOr<PlanningResult> PlanningEngine::Compute(
    const PreparedRequest& request, const StopSignal& stop,
    const JobManager::ProgressFn& on_progress) const {
  const auto start = std::chrono::steady_clock::now();
  std::vector<TableWarning> imputed_table_warnings;
  absl::StatusOr<Task> costed = TaskToCost(request, &imputed_table_warnings, &stop);
  if (!costed.ok()) return costed.status();
  if (absl::Status go_on = stop.Check(); !go_on.ok()) return go_on;
  absl::StatusOr<Plan> plan =
      RunPlanning(request.planning, *costed, {.stop = &stop, .on_progress = on_progress});
  if (!plan.ok()) return plan.status();
  if (metrics_ != nullptr) {
    metrics_->RecordPlan(
        plan->algorithm,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  CachePlan(request, *plan, imputed_table_warnings);
  return ResultFor(request, *std::move(plan), std::move(imputed_table_warnings));
}

void PlanningEngine::CachePlan(const PreparedRequest& request, const Plan& plan,
                               const std::vector<TableWarning>& imputed_table_warnings) const {
  // A search a deadline cut short is not the answer to the request: a later caller with more
  // time would get a worse plan from the cache.
  if (!Cacheable(request) || plan.stats.anytime_result) return;
  const int64_t evicted =
      cache_->Insert(request.cache_key, std::make_shared<const Plan>(plan), imputed_table_warnings);
  if (metrics_ != nullptr) {
    metrics_->RecordCacheEvictions(evicted);
    metrics_->SetCacheSize(cache_->bytes(), cache_->entries());
  }
}

absl::Status PlanningEngine::CheckTaskAndPlan(const Task& task, const Plan& plan) const {
  if (absl::Status valid = CheckTask(task); !valid.ok()) return valid;
  if (absl::Status checked = ValidatePlan(task, plan); !checked.ok()) return PlanError(checked);
  return absl::OkStatus();
}

absl::StatusOr<PlanningResult> PlanningEngine::Evaluate(const Task& task, Plan plan,
                                                        const std::string& model_spec,
                                                        const StopSignal* stop) const {
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  if (absl::Status valid = CheckTaskAndPlan(task, plan); !valid.ok()) return valid;
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  if (absl::Status known = CheckHardware(task.topology.hardware, *models_); !known.ok()) {
    return known;
  }
  PlanningResult result;
  absl::StatusOr<ResolvedModel> model =
      ChooseModel(model_spec, task, &result.selection, /*algorithm=*/nullptr, &plan);
  if (!model.ok()) return model.status();
  // The warnings in the order a Plan call gives them (Prepare, then WarningsFor).
  Task costed = task;
  const bool imputes = model->model->ReadsAccessHistograms();
  if (imputes) {
    result.warnings = ImputedHistogramWarnings(TablesWithoutHistogram(task), model->manifest.id());
  }
  for (PlanWarning& warning : OutsideTrainingWarnings(task, *model->model, model->manifest.id(),
                                                      /*skip_tables_without_histogram=*/imputes)) {
    result.warnings.push_back(std::move(warning));
  }
  if (model_spec.empty()) {
    if (std::optional<PlanWarning> assumed =
            HardwareAssumedWarning(task.topology.hardware, model->manifest, *models_)) {
      result.warnings.push_back(*std::move(assumed));
    }
  }
  if (imputes) {
    int64_t imputed = 0;
    absl::StatusOr<std::vector<TableWarning>> imputed_warnings =
        ImputeHistograms(costed, model->model.get(), model->manifest.id(), &imputed, stop);
    if (metrics_ != nullptr) metrics_->RecordImputedHistograms(imputed);
    if (!imputed_warnings.ok()) return imputed_warnings.status();
    for (PlanWarning& warning : AtRequestPositions(task, *imputed_warnings)) {
      result.warnings.push_back(std::move(warning));
    }
  }
  if (metrics_ != nullptr) metrics_->RecordPlanWarnings(result.warnings);
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  // EvaluatePlan records the model and "simulated".
  if (absl::Status evaluated = EvaluatePlan(costed, *model->model, plan); !evaluated.ok()) {
    return PlanError(evaluated);
  }
  result.plan = std::move(plan);
  AnnotatePlan(task, result);
  return result;
}

absl::StatusOr<PlanningResult> PlanningEngine::EvaluateOnGroundTruth(const Task& task, Plan plan,
                                                                     const std::string& spec,
                                                                     const StopSignal* stop) const {
  const std::vector<std::string> parts = absl::StrSplit(spec, absl::MaxSplits(':', 1));
  if (parts.size() != 2 || parts[0] != "sim" || parts[1].empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ground_truth: ", QuotedName(spec),
        " is not \"sim:<profile>\" (the cluster simulator; profiles: ", SimProfileNames(), ")"));
  }
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  if (absl::Status valid = CheckTaskAndPlan(task, plan); !valid.ok()) return valid;
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  absl::StatusOr<std::unique_ptr<HardwareBackend>> backend =
      MakeSimBackend(parts[1], task.topology.num_devices());
  if (!backend.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("ground_truth: ", backend.status().message()));
  }
  PlanningResult result;
  Task simulated = task;
  result.warnings =
      ImputedHistogramWarnings(TablesWithoutHistogram(task), (*backend)->hardware_profile());
  int64_t imputed = 0;
  absl::Status imputation =
      ImputeHistograms(simulated, nullptr, (*backend)->hardware_profile(), &imputed, stop).status();
  if (metrics_ != nullptr) metrics_->RecordImputedHistograms(imputed);
  if (!imputation.ok()) return imputation;
  if (metrics_ != nullptr) metrics_->RecordPlanWarnings(result.warnings);
  if (absl::Status go_on = GoOn(stop); !go_on.ok()) return go_on;
  // EvaluatePlanOnHardware records the hardware profile and "ground_truth".
  if (absl::Status measured = EvaluatePlanOnHardware(simulated, **backend, plan); !measured.ok()) {
    return WithPrefix(measured, "ground_truth: ");
  }
  result.plan = std::move(plan);
  AnnotatePlan(task, result);
  return result;
}

}  // namespace shardplan
