#include "server/metrics.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "server/build_info.h"
#include "server/log_metrics.h"
#include "server/process_metrics.h"

namespace shardplan {
namespace {

// "OK", "UNAVAILABLE", ...: the gRPC code names, which absl's canonical codes share.
std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);
  return name.empty() ? "UNKNOWN" : name;
}

// 1 ms .. ~65 s in factors of 2: RPCs range from list calls to long exhaustive searches.
const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries buckets = [] {
    prometheus::Histogram::BucketBoundaries bounds;
    for (double b = 0.001; b < 70.0; b *= 2) bounds.push_back(b);
    return bounds;
  }();
  return buckets;
}

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Gauge& SingleGauge(prometheus::Registry& registry, const std::string& name,
                               const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add({});
}

}  // namespace

ServerMetrics::ServerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      rpc_requests_(CounterFamily(*registry_, "shardplan_rpc_requests_total",
                                  "RPCs handled, by method and gRPC status code")),
      rpc_duration_(prometheus::BuildHistogram()
                        .Name("shardplan_rpc_duration_seconds")
                        .Help("RPC latency in seconds, by method")
                        .Register(*registry_)),
      rpcs_in_flight_(prometheus::BuildGauge()
                          .Name("shardplan_rpcs_in_flight")
                          .Help("RPCs being handled, by method")
                          .Register(*registry_)),
      plans_(CounterFamily(*registry_, "shardplan_plans_total",
                           "Plans computed (cache hits excluded), by algorithm")),
      planning_duration_(prometheus::BuildHistogram()
                             .Name("shardplan_planning_duration_seconds")
                             .Help("Time spent planning in seconds, by algorithm")
                             .Register(*registry_)),
      sync_plans_in_progress_(SingleGauge(
          *registry_, "shardplan_sync_plans_in_progress",
          "Plan calls planning now (cache hits and jobs excluded), at most max_concurrent_plans")),
      sync_plans_rejected_(
          CounterFamily(*registry_, "shardplan_sync_plans_rejected_total",
                        "Plan calls refused with RESOURCE_EXHAUSTED because max_concurrent_plans "
                        "calls were already planning")
              .Add({})),
      work_in_progress_(SingleGauge(*registry_, "shardplan_work_in_progress",
                                    "Table-devices (tables x devices) of the calls converting, "
                                    "validating, planning, evaluating or measuring tasks now")),
      work_capacity_(SingleGauge(*registry_, "shardplan_work_capacity",
                                 "max_concurrent_work: the table-devices admitted at once")),
      work_rejected_(CounterFamily(*registry_, "shardplan_work_rejected_total",
                                   "Calls refused with RESOURCE_EXHAUSTED because their task "
                                   "would exceed max_concurrent_work")
                         .Add({})),
      cache_hits_(CounterFamily(*registry_, "shardplan_plan_cache_hits_total",
                                "Plan cache lookups that found a plan")
                      .Add({})),
      imputed_histograms_(CounterFamily(*registry_, "shardplan_imputed_histograms_total",
                                        "Tables given the typical access histogram to be "
                                        "costed (plans computed, evaluations)")
                              .Add({})),
      cache_misses_(CounterFamily(*registry_, "shardplan_plan_cache_misses_total",
                                  "Plan cache lookups that found none")
                        .Add({})),
      cache_evictions_(CounterFamily(*registry_, "shardplan_plan_cache_evictions_total",
                                     "Plans evicted from the cache to stay within its budget")
                           .Add({})),
      cache_bytes_(SingleGauge(*registry_, "shardplan_plan_cache_bytes",
                               "Approximate bytes held by the plan cache")),
      cache_entries_(
          SingleGauge(*registry_, "shardplan_plan_cache_entries", "Plans in the plan cache")),
      queue_depth_(
          SingleGauge(*registry_, "shardplan_job_queue_depth", "Jobs waiting for a worker")),
      jobs_in_flight_(SingleGauge(*registry_, "shardplan_jobs_in_flight", "Jobs running")),
      jobs_finished_(CounterFamily(*registry_, "shardplan_jobs_finished_total",
                                   "Jobs that reached a final state, by state")),
      grpc_calls_(CounterFamily(*registry_, "shardplan_grpc_calls_total",
                                "Calls as gRPC answered them, by full method name and code, "
                                "including those refused before a handler ran (a request "
                                "that does not parse)")),
      watch_streams_(SingleGauge(*registry_, "shardplan_watch_streams",
                                 "WatchPlan streams open (max_streams, max_streams_per_client)")),
      calls_in_flight_(SingleGauge(*registry_, "shardplan_rpc_calls_in_flight",
                                   "Calls in flight over every method (each holds a handler "
                                   "thread, max_rpc_threads)")),
      saturated_gauge_(SingleGauge(*registry_, "shardplan_rpc_saturated",
                                   "1 while calls in flight hold 90% of the handler threads "
                                   "(until they fall below 75%); the planner service's health "
                                   "is NOT_SERVING meanwhile")),
      retained_jobs_(SingleGauge(*registry_, "shardplan_retained_jobs",
                                 "Finished jobs held in memory for GetPlan and WatchPlan")),
      retained_job_bytes_(SingleGauge(*registry_, "shardplan_retained_job_bytes",
                                      "Approximate bytes of the finished jobs held in memory")),
      jobs_forgotten_(CounterFamily(*registry_, "shardplan_jobs_forgotten_total",
                                    "Finished jobs dropped from memory, by the bound passed "
                                    "(count, bytes, age); the plan store still answers for "
                                    "them")),
      models_loaded_(SingleGauge(*registry_, "shardplan_models_loaded",
                                 "Cost-model versions the server can serve")),
      policies_loaded_(SingleGauge(*registry_, "shardplan_policies_loaded",
                                   "Trained policy versions the server can serve")),
      model_info_(prometheus::BuildGauge()
                      .Name("shardplan_model_info")
                      .Help("1 per servable cost-model or policy (kind \"policy\") version, "
                            "labelled with its identity")
                      .Register(*registry_)),
      model_reloads_(CounterFamily(*registry_, "shardplan_model_reloads_total",
                                   "Scans of models_dir, by result (ok, refusals, error)")),
      model_load_failures_(CounterFamily(
          *registry_, "shardplan_model_load_failures_total",
          "Model bundles refused, by reason (unreadable, file_type, size, missing, invalid); a "
          "bundle refused again for the same reason is not counted again")),
      models_refused_(SingleGauge(*registry_, "shardplan_models_refused",
                                  "Model bundles the last models_dir scan refused")),
      store_calls_(CounterFamily(*registry_, "shardplan_store_operations_total",
                                 "Plan-store calls, by operation and gRPC status code")),
      store_pruned_(CounterFamily(*registry_, "shardplan_store_pruned_records_total",
                                  "Finished keyless records deleted from the plan store by "
                                  "retention (store_retention_s)")
                        .Add({})),
      store_size_pruned_(CounterFamily(*registry_, "shardplan_store_size_pruned_records_total",
                                       "Finished keyless records deleted, oldest first, to keep "
                                       "the plan store within store_max_bytes")
                             .Add({})),
      store_bytes_(SingleGauge(*registry_, "shardplan_store_bytes",
                               "Bytes of request, plan and error text the plan store holds, as "
                               "of the last retention pass (or the start)")),
      store_kept_bytes_(SingleGauge(*registry_, "shardplan_store_kept_bytes",
                                    "Of shardplan_store_bytes, what size pruning never deletes: "
                                    "keyed plans and unfinished jobs")),
      store_oversized_(CounterFamily(*registry_, "shardplan_store_oversized_plans_total",
                                     "Keyless plans served but not stored because their record "
                                     "is larger than store_max_plan_bytes")
                           .Add({})),
      store_damaged_(CounterFamily(*registry_, "shardplan_store_damaged_records_total",
                                   "Stored records found damaged (failing their checksum, or "
                                   "unreadable), each counted once")
                         .Add({})),
      store_unverified_(CounterFamily(*registry_, "shardplan_store_unverified_reads_total",
                                      "Reads of records written before checksums (schema "
                                      "version 1), served unverified")
                            .Add({})),
      store_checks_(CounterFamily(*registry_, "shardplan_store_checks_total",
                                  "Start-up integrity checks of the plan store, by result (ok, "
                                  "damaged, unfinished, error)")),
      store_healthy_(SingleGauge(*registry_, "shardplan_store_healthy",
                                 "0 once the plan store was found damaged (start-up check or a "
                                 "damaged record), else 1")),
      jobs_recovered_(CounterFamily(*registry_, "shardplan_jobs_recovered_total",
                                    "Jobs found queued or running at start-up, by outcome "
                                    "(resumed, failed)")),
      job_key_hits_(CounterFamily(*registry_, "shardplan_job_key_hits_total",
                                  "Keyed Plan calls answered with the key's stored plan")
                        .Add({})),
      auth_rejections_(CounterFamily(*registry_, "shardplan_auth_rejections_total",
                                     "Calls refused by the bearer-token check, by gRPC code and "
                                     "method")),
      queue_capacity_(SingleGauge(*registry_, "shardplan_job_queue_capacity",
                                  "Jobs the queue holds before SubmitPlan answers "
                                  "RESOURCE_EXHAUSTED (queue_capacity)")),
      singleflight_joins_(CounterFamily(*registry_, "shardplan_plan_singleflight_joins_total",
                                        "Plan calls that waited for an identical request's "
                                        "computation in flight instead of planning")
                              .Add({})),
      plan_warnings_(CounterFamily(*registry_, "shardplan_plan_warnings_total",
                                   "Warnings given with plans, by code (e.g. "
                                   "IMPUTED_ACCESS_HISTOGRAM: a table without a histogram)")),
      model_measurements_(CounterFamily(*registry_, "shardplan_model_measurements_total",
                                        "Measured plan costs reported by training jobs "
                                        "(ReportMeasurement), by the model version checked")),
      model_prediction_error_(
          prometheus::BuildGauge()
              .Name("shardplan_model_prediction_error")
              .Help("Absolute relative error of a model version's predicted step time "
                    "against the measured one: the median over reporters of each one's mean "
                    "over its last 20 reports")
              .Register(*registry_)),
      process_(std::make_shared<ProcessCollector>()),
      log_lines_(std::make_shared<LogLinesCollector>()) {
  store_healthy_.Set(1);  // nothing found damaged yet
  const BuildInfo& build = GetBuildInfo();
  prometheus::BuildGauge()
      .Name("shardplan_build_info")
      .Help("1, labelled with the version, commit, build type and compiler of this binary")
      .Register(*registry_)
      .Add({{"version", build.version},
            {"git_commit", build.git_commit},
            {"build_type", build.build_type},
            {"compiler", build.compiler}})
      .Set(1);
}

std::vector<std::shared_ptr<prometheus::Collectable>> ServerMetrics::collectables() const {
  return {registry_, process_, log_lines_};
}

void ServerMetrics::RecordRpcStart(absl::string_view method) {
  rpcs_in_flight_.Add({{"method", std::string(method)}}).Increment();
  calls_.fetch_add(1);
  CheckSaturation();
}

void ServerMetrics::RecordRpc(absl::string_view method, absl::string_view code, double seconds) {
  rpcs_in_flight_.Add({{"method", std::string(method)}}).Decrement();
  calls_.fetch_sub(1);
  CheckSaturation();
  rpc_requests_.Add({{"method", std::string(method)}, {"code", std::string(code)}}).Increment();
  rpc_duration_.Add({{"method", std::string(method)}}, LatencyBuckets()).Observe(seconds);
}

void ServerMetrics::RecordPlan(const std::string& algorithm, double seconds) {
  plans_.Add({{"algorithm", algorithm}}).Increment();
  planning_duration_.Add({{"algorithm", algorithm}}, LatencyBuckets()).Observe(seconds);
}

void ServerMetrics::RecordSyncPlanStart() { sync_plans_in_progress_.Increment(); }

void ServerMetrics::RecordSyncPlanEnd() { sync_plans_in_progress_.Decrement(); }

void ServerMetrics::RecordSyncPlanRejected() { sync_plans_rejected_.Increment(); }

void ServerMetrics::RecordCacheLookup(bool hit) { (hit ? cache_hits_ : cache_misses_).Increment(); }

void ServerMetrics::SetWork(int64_t in_progress, int64_t capacity) {
  work_in_progress_.Set(static_cast<double>(in_progress));
  work_capacity_.Set(static_cast<double>(capacity));
}

void ServerMetrics::RecordWorkRejected() { work_rejected_.Increment(); }

void ServerMetrics::RecordImputedHistograms(int64_t tables) {
  if (tables > 0) imputed_histograms_.Increment(static_cast<double>(tables));
}

void ServerMetrics::RecordCacheEvictions(int64_t count) {
  if (count > 0) cache_evictions_.Increment(static_cast<double>(count));
}

void ServerMetrics::SetCacheSize(int64_t bytes, int64_t entries) {
  cache_bytes_.Set(static_cast<double>(bytes));
  cache_entries_.Set(static_cast<double>(entries));
}

void ServerMetrics::SetJobLoad(int64_t queued, int64_t running) {
  queue_depth_.Set(static_cast<double>(queued));
  jobs_in_flight_.Set(static_cast<double>(running));
}

void ServerMetrics::SetWatchStreams(int64_t open) { watch_streams_.Set(static_cast<double>(open)); }

void ServerMetrics::WatchSaturation(int64_t handler_threads, std::function<void(bool)> on_change) {
  std::lock_guard<std::mutex> lock(saturation_mu_);
  const int64_t threads = std::max<int64_t>(handler_threads, 1);
  saturate_at_ = std::max<int64_t>(1, (threads * 9 + 9) / 10);  // ceil(90%)
  clear_below_ = std::max<int64_t>(1, (threads * 3 + 3) / 4);   // ceil(75%)
  on_saturation_ = std::move(on_change);
}

void ServerMetrics::CheckSaturation() {
  std::function<void(bool)> on_change;
  {
    std::lock_guard<std::mutex> lock(saturation_mu_);
    // Read under the lock: the gauge and the flips follow the counts in order.
    const int64_t now = calls_.load();
    calls_in_flight_.Set(static_cast<double>(now));
    if (saturate_at_ == 0) return;
    const bool saturated = saturated_ ? now >= clear_below_ : now >= saturate_at_;
    if (saturated == saturated_) return;
    saturated_ = saturated;
    saturated_gauge_.Set(saturated ? 1 : 0);
    on_change = on_saturation_;
  }
  if (!on_change) return;
  // Outside saturation_mu_, which every call's start and end takes: the callback talks to
  // gRPC's health service. Flips that race apply in turn, each the state as it is by then, so
  // the last one applied is the latest.
  std::lock_guard<std::mutex> order(saturation_callback_mu_);
  bool latest = false;
  {
    std::lock_guard<std::mutex> lock(saturation_mu_);
    latest = saturated_;
  }
  if (latest == saturation_applied_) return;
  saturation_applied_ = latest;
  on_change(latest);
}

void ServerMetrics::RecordGrpcCall(absl::string_view method, absl::string_view code) {
  grpc_calls_.Add({{"method", std::string(method)}, {"code", std::string(code)}}).Increment();
}

void ServerMetrics::RecordJobFinished(absl::string_view state) {
  jobs_finished_.Add({{"state", std::string(state)}}).Increment();
}

void ServerMetrics::SetRetainedJobs(int64_t count, int64_t bytes) {
  retained_jobs_.Set(static_cast<double>(count));
  retained_job_bytes_.Set(static_cast<double>(bytes));
}

void ServerMetrics::RecordJobForgotten(absl::string_view reason) {
  jobs_forgotten_.Add({{"reason", std::string(reason)}}).Increment();
}

void ServerMetrics::SetModelsLoaded(int64_t count) {
  models_loaded_.Set(static_cast<double>(count));
}

void ServerMetrics::SetPoliciesLoaded(int64_t count) {
  policies_loaded_.Set(static_cast<double>(count));
}

void ServerMetrics::SetModelInfo(const std::vector<ModelRegistry::Entry>& models,
                                 const std::vector<PolicyRegistry::Entry>& policies) {
  std::lock_guard<std::mutex> lock(model_info_mu_);
  for (prometheus::Gauge* series : model_info_series_) model_info_.Remove(series);
  model_info_series_.clear();
  for (const ModelRegistry::Entry& entry : models) {
    prometheus::Gauge& series =
        model_info_.Add({{"name", entry.manifest.name},
                         {"version", entry.manifest.version},
                         {"kind", entry.manifest.kind},
                         {"hardware_profile", entry.manifest.hardware_profile},
                         {"default", entry.is_default && entry.is_latest ? "true" : "false"}});
    series.Set(1);
    model_info_series_.push_back(&series);
  }
  for (const PolicyRegistry::Entry& entry : policies) {
    prometheus::Gauge& series =
        model_info_.Add({{"name", entry.manifest.name},
                         {"version", entry.manifest.version},
                         {"kind", "policy"},
                         {"hardware_profile", entry.manifest.hardware_profile},
                         {"default", "false"}});
    series.Set(1);
    model_info_series_.push_back(&series);
  }
}

void ServerMetrics::DeclareModelLoadFailureReasons(const std::vector<std::string>& reasons) {
  for (const std::string& reason : reasons) model_load_failures_.Add({{"reason", reason}});
}

void ServerMetrics::RecordModelReload(absl::string_view result,
                                      const std::vector<std::string>& new_refusal_reasons,
                                      int64_t refused) {
  model_reloads_.Add({{"result", std::string(result)}}).Increment();
  for (const std::string& reason : new_refusal_reasons) {
    model_load_failures_.Add({{"reason", reason}}).Increment();
  }
  models_refused_.Set(static_cast<double>(refused));
}

void ServerMetrics::RecordAuthRejection(absl::string_view code, absl::string_view method) {
  auth_rejections_.Add({{"code", std::string(code)}, {"method", std::string(method)}}).Increment();
}

void ServerMetrics::SetJobQueueCapacity(int64_t capacity) {
  queue_capacity_.Set(static_cast<double>(capacity));
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& address, std::shared_ptr<prometheus::Registry> registry) {
  return Start(address, std::vector<std::shared_ptr<prometheus::Collectable>>{std::move(registry)});
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& address,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables) {
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    // CivetWeb throws when it cannot bind; nothing else of ours throws.
    exposer = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("metrics_address: cannot serve on \"", address, "\": ", e.what()));
  }
  for (const std::shared_ptr<prometheus::Collectable>& collectable : collectables) {
    exposer->RegisterCollectable(collectable);
  }
  std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("metrics_address: \"", address, "\" is bound to no port"));
  }
  return std::unique_ptr<MetricsEndpoint>(
      new MetricsEndpoint(std::move(exposer), ports[0], collectables));
}

void ServerMetrics::RecordStoreCall(absl::string_view operation, absl::StatusCode code) {
  store_calls_.Add({{"operation", std::string(operation)}, {"code", CodeName(code)}}).Increment();
}

void ServerMetrics::RecordStorePruned(int64_t count) {
  store_pruned_.Increment(static_cast<double>(count));
}

void ServerMetrics::RecordStoreSizePruned(int64_t count) {
  store_size_pruned_.Increment(static_cast<double>(count));
}

void ServerMetrics::SetStoreBytes(int64_t total, int64_t kept) {
  store_bytes_.Set(static_cast<double>(total));
  store_kept_bytes_.Set(static_cast<double>(kept));
}

void ServerMetrics::RecordStoreOversizedPlan() { store_oversized_.Increment(); }

void ServerMetrics::RecordStoreDamagedRecord() {
  store_damaged_.Increment();
  store_healthy_.Set(0);
}

void ServerMetrics::RecordStoreUnverifiedRead() { store_unverified_.Increment(); }

void ServerMetrics::RecordStoreCheck(absl::string_view result) {
  store_checks_.Add({{"result", std::string(result)}}).Increment();
  if (result == "damaged") store_healthy_.Set(0);
}

void ServerMetrics::RecordJobRecovery(absl::string_view outcome) {
  jobs_recovered_.Add({{"outcome", std::string(outcome)}}).Increment();
}

void ServerMetrics::RecordJobKeyHit() { job_key_hits_.Increment(); }

void ServerMetrics::RecordSingleFlightJoin() { singleflight_joins_.Increment(); }

void ServerMetrics::RecordPlanWarnings(const std::vector<PlanWarning>& warnings) {
  for (const PlanWarning& warning : warnings)
    plan_warnings_.Add({{"code", warning.code}}).Increment();
}

void ServerMetrics::RecordMeasurement(const std::string& model, double mean_abs_relative_error) {
  model_measurements_.Add({{"model", model}}).Increment();
  model_prediction_error_.Add({{"model", model}}).Set(mean_abs_relative_error);
}

}  // namespace shardplan
