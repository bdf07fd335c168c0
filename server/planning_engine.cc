#include "server/planning_engine.h"

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/evaluation.h"
#include "planner/plan_task.h"
#include "server/cache_key.h"
#include "server/metrics.h"
#include "server/status_conversion.h"

namespace shardplan {
namespace {

// Names from requests are echoed in errors; a hostile megabyte-long name is not.
std::string Quoted(const std::string& name) {
  constexpr size_t kMaxShown = 128;
  return absl::StrCat("\"", name.size() > kMaxShown ? name.substr(0, kMaxShown) + "..." : name,
                      "\"");
}

// ValidatePlan names plan fields ("tables[0].table: ...") for malformed plans and devices
// ("device 1: needs ...") for infeasible ones.
absl::Status PlanError(const absl::Status& status) {
  return WithPrefix(status,
                    status.code() == absl::StatusCode::kInvalidArgument ? "plan." : "plan: ");
}

}  // namespace

PlanningEngine::PlanningEngine(const AlgorithmRegistry* algorithms, const ModelRegistry* models,
                               PlanCache* cache, ServerMetrics* metrics,
                               PlanningEngineOptions options)
    : algorithms_(algorithms),
      models_(models),
      cache_(cache),
      metrics_(metrics),
      options_(std::move(options)) {}

absl::StatusOr<const Planner*> PlanningEngine::FindAlgorithm(const std::string& name) const {
  std::vector<std::string> known;
  for (const Planner* planner : algorithms_->List()) {
    if (planner->info().name == name) return planner;
    known.push_back(planner->info().name);
  }
  return absl::InvalidArgumentError(absl::StrCat("algorithm: unknown algorithm ", Quoted(name),
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
  if (!supported.ok()) {
    return WithPrefix(supported, absl::StrCat("model ", model->model->id(), ": "));
  }
  return model;
}

absl::StatusOr<PreparedRequest> PlanningEngine::Prepare(PlanningRequest request) const {
  if (absl::Status valid = CheckTask(request.task); !valid.ok()) return valid;

  PreparedRequest prepared;
  prepared.task = CanonicalTask(std::move(request.task));
  absl::StatusOr<const Planner*> planner =
      FindAlgorithm(request.algorithm.empty() ? options_.default_algorithm : request.algorithm);
  if (!planner.ok()) return planner.status();
  prepared.planner = *planner;
  absl::StatusOr<ParamValues> params =
      ResolveParams(prepared.planner->info().params, request.params);
  if (!params.ok()) return params.status();  // already "parameters.<name>: ..."
  prepared.params = *std::move(params);
  absl::StatusOr<ResolvedModel> model = ResolveModelFor(request.model, prepared.task);
  if (!model.ok()) return model.status();
  prepared.model = *std::move(model);
  prepared.seed = request.seed;
  prepared.bypass_cache = request.bypass_cache;
  prepared.cache_key = PlanCacheKey({.task = &prepared.task,
                                     .algorithm = prepared.planner->info().name,
                                     .resolved_params = prepared.params.values(),
                                     .seed = prepared.seed,
                                     .model_id = prepared.model.manifest.id(),
                                     .model_content = prepared.model.manifest.content_sha256});
  return prepared;
}

bool PlanningEngine::Cacheable(const PreparedRequest& request) const {
  return cache_ != nullptr && cache_->capacity_bytes() > 0 && !request.cache_key.empty();
}

absl::StatusOr<PlanningResult> PlanningEngine::Run(
    const PreparedRequest& request, const StopSignal& stop,
    const JobManager::ProgressFn& on_progress) const {
  if (std::optional<PlanningResult> cached = CachedResult(request)) return *std::move(cached);
  return Compute(request, stop, on_progress);
}

std::optional<PlanningResult> PlanningEngine::CachedResult(const PreparedRequest& request) const {
  if (!Cacheable(request) || request.bypass_cache) return std::nullopt;
  std::shared_ptr<const Plan> cached = cache_->Lookup(request.cache_key);
  if (metrics_ != nullptr) metrics_->RecordCacheLookup(cached != nullptr);
  if (cached == nullptr) return std::nullopt;
  return PlanningResult{*cached, /*cache_hit=*/true};
}

absl::StatusOr<PlanningResult> PlanningEngine::Compute(
    const PreparedRequest& request, const StopSignal& stop,
    const JobManager::ProgressFn& on_progress) const {
  PlanTaskOptions options;
  // PlanTask checks the model's support and resolves the parameters again, as it does for every
  // caller; on values Prepare already resolved that is a no-op costing microseconds.
  options.params = request.params.values();
  options.seed = request.seed;
  options.stop = &stop;
  options.on_progress = on_progress;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Plan> plan =
      PlanTask(*request.planner, request.task, *request.model.model, options);
  if (!plan.ok()) return plan.status();
  // The registry's name@version, which the cache key holds too: the exact version resolved,
  // whatever spec ("", "name") the client sent.
  plan->cost_model = request.model.manifest.id();
  plan->request_hash = request.cache_key;
  if (metrics_ != nullptr) {
    metrics_->RecordPlan(
        plan->algorithm,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // A search a deadline cut short is not the answer to the request: a later caller with more
  // time would get a worse plan from the cache.
  if (Cacheable(request) && !plan->stats.anytime_result) {
    const int64_t evicted = cache_->Insert(request.cache_key, std::make_shared<const Plan>(*plan));
    if (metrics_ != nullptr) {
      metrics_->RecordCacheEvictions(evicted);
      metrics_->SetCacheSize(cache_->bytes(), cache_->entries());
    }
  }
  return PlanningResult{*std::move(plan), /*cache_hit=*/false};
}

absl::StatusOr<Plan> PlanningEngine::Evaluate(const Task& task, Plan plan,
                                              const std::string& model_spec) const {
  if (absl::Status valid = CheckTask(task); !valid.ok()) return valid;
  absl::StatusOr<ResolvedModel> model = ResolveModelFor(model_spec, task);
  if (!model.ok()) return model.status();
  if (absl::Status checked = ValidatePlan(task, plan); !checked.ok()) return PlanError(checked);
  if (absl::Status evaluated = EvaluatePlan(task, *model->model, plan); !evaluated.ok()) {
    return PlanError(evaluated);
  }
  plan.cost_model = model->manifest.id();
  plan.cost_kind = "simulated";
  return plan;
}

}  // namespace shardplan
