#ifndef SHARDPLAN_SERVER_METRICS_H_
#define SHARDPLAN_SERVER_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/planning_result.h"  // PlanWarning

namespace shardplan {

// The server's Prometheus metrics, all named shardplan_*. Every recorder is thread-safe.
//   shardplan_rpc_requests_total{method,code}        counter, one per finished RPC
//   shardplan_rpc_duration_seconds{method}           histogram of RPC latency
//   shardplan_rpcs_in_flight{method}                 gauge of RPCs being handled
//   shardplan_plans_total{algorithm}                 counter of plans computed (not cache hits)
//   shardplan_planning_duration_seconds{algorithm}   histogram of planning time
//   shardplan_sync_plans_in_progress                 gauge of Plan calls planning (not hits)
//   shardplan_sync_plans_rejected_total              counter of Plan calls refused for
//                                                    max_concurrent_plans (RESOURCE_EXHAUSTED)
//   shardplan_work_in_progress / _capacity           gauges of the table-devices of the calls
//                                                    converting, validating, planning,
//                                                    evaluating or measuring now, and of
//                                                    max_concurrent_work
//   shardplan_work_rejected_total                    counter of calls refused for
//                                                    max_concurrent_work (RESOURCE_EXHAUSTED)
//   shardplan_plan_cache_hits_total / _misses_total  counters of cache lookups
//   shardplan_plan_cache_evictions_total             counter of entries evicted for space
//   shardplan_plan_cache_bytes / _entries            gauges of the cache's content
//   shardplan_job_queue_depth                        gauge of queued jobs
//   shardplan_jobs_in_flight                         gauge of running jobs
//   shardplan_jobs_finished_total{state}             counter by final state
//   shardplan_grpc_calls_total{method,code}          counter of calls as gRPC answered them,
//                                                    those refused before a handler included
//   shardplan_watch_streams                          gauge of WatchPlan streams open
//   shardplan_rpc_calls_in_flight                    gauge of calls in flight, every method
//   shardplan_rpc_saturated                          1 while those reach 90% of the handler
//                                                    threads (WatchSaturation), else 0
//   shardplan_retained_jobs / _retained_job_bytes    gauges of finished jobs held in memory
//   shardplan_jobs_forgotten_total{reason}           counter of finished jobs dropped from
//                                                    memory past a bound: count, bytes, age
//   shardplan_models_loaded                          gauge of servable model versions
//   shardplan_policies_loaded                        gauge of servable policy versions
//   shardplan_model_info{name,version,kind,hardware_profile,default}
//                                                    gauge, 1 per servable model version and
//                                                    per policy version (kind "policy")
//   shardplan_model_reloads_total{result}            counter of models_dir scans: "ok",
//                                                    "refusals" (some bundle refused), "error"
//   shardplan_model_load_failures_total{reason}      counter of bundle refusals, each distinct
//                                                    (directory, reason) counted once; reason
//                                                    unreadable, file_type, size, missing or
//                                                    invalid (ModelLoadFailureReason)
//   shardplan_models_refused                         gauge of bundles the last scan refused
//   shardplan_auth_rejections_total{code,method}     counter of calls refused by the bearer
//                                                    token check (UNAUTHENTICATED or
//                                                    PERMISSION_DENIED; method "unknown" for
//                                                    paths the server does not serve)
//   shardplan_job_queue_capacity                     gauge, the queue_capacity setting (for
//                                                    "queue near capacity" alerts)
//   shardplan_plan_warnings_total{code}              counter of warnings given with plans, e.g.
//                                                    IMPUTED_ACCESS_HISTOGRAM per table
//   shardplan_imputed_histograms_total               counter of tables given the typical access
//                                                    histogram to be costed (plans computed,
//                                                    evaluations; never cache hits)
//   shardplan_plan_singleflight_joins_total          counter of Plan calls that waited for an
//                                                    identical request's computation in flight
//                                                    instead of planning
//   shardplan_model_measurements_total{model}        counter of measured costs training jobs
//                                                    reported (ReportMeasurement), per version
//   shardplan_model_prediction_error{model}          gauge, the version's mean |relative error|
//                                                    of its predicted step over the last reports
//   shardplan_build_info{version,git_commit,build_type,compiler}
//                                                    gauge, 1: what this binary was built from
// Beside the registry, collectables() adds what is read at scrape time: the process_* metrics
// (server/process_metrics.h) and the log's counters (server/log_metrics.h).
//   shardplan_store_size_pruned_records_total        counter of keyless records deleted for
//                                                    store_max_bytes
//   shardplan_store_bytes, shardplan_store_kept_bytes gauges of the bytes the store holds, and
//                                                    of those what size pruning keeps
//   shardplan_store_oversized_plans_total            counter of keyless plans not stored for
//                                                    store_max_plan_bytes
//   shardplan_store_damaged_records_total            counter of damaged records, once each
//   shardplan_store_unverified_reads_total           counter of reads of records without checksum
//   shardplan_store_checks_total{result}             counter of start-up store checks
//   shardplan_store_healthy                          gauge: 0 once damage was found, else 1
class ServerMetrics {
 public:
  ServerMetrics();

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }
  // What the metrics endpoint serves: the registry and the scrape-time collectors.
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables() const;

  // An RPC of `method` started; RecordRpc ends it. `code` is the gRPC code's name, e.g. "OK".
  void RecordRpcStart(absl::string_view method);
  void RecordRpc(absl::string_view method, absl::string_view code, double seconds);
  // A call ended as gRPC answered it ("/package.Service/Method", the code's name), calls that
  // never reached a handler included (CallOutcomeInterceptor).
  void RecordGrpcCall(absl::string_view method, absl::string_view code);
  void RecordPlan(const std::string& algorithm, double seconds);
  // A Plan call started planning (it took a max_concurrent_plans slot); RecordSyncPlanEnd ends
  // it. RecordSyncPlanRejected: one found every slot taken.
  void RecordSyncPlanStart();
  void RecordSyncPlanEnd();
  void RecordSyncPlanRejected();
  // The table-devices admitted now under max_concurrent_work, and that limit.
  void SetWork(int64_t in_progress, int64_t capacity);
  void RecordWorkRejected();
  void RecordCacheLookup(bool hit);
  void RecordCacheEvictions(int64_t count);
  void SetCacheSize(int64_t bytes, int64_t entries);
  void SetJobLoad(int64_t queued, int64_t running);
  void RecordJobFinished(absl::string_view state);  // "SUCCEEDED", "FAILED", "CANCELLED"
  // WatchPlan streams open now (StreamLimits).
  void SetWatchStreams(int64_t open);
  // Calls in flight over every method are judged against `handler_threads` (max_rpc_threads
  // less gRPC's polling thread): the server is saturated from 90% of them until it falls
  // below 75%. `on_change(saturated)` runs when that flips (the server turns the planner
  // service's health NOT_SERVING and back). Call once, before serving.
  void WatchSaturation(int64_t handler_threads, std::function<void(bool)> on_change);
  // Finished jobs held in memory and their bytes; one forgotten past a bound ("count",
  // "bytes", "age": JobManagerOptions).
  void SetRetainedJobs(int64_t count, int64_t bytes);
  void RecordJobForgotten(absl::string_view reason);
  void SetModelsLoaded(int64_t count);
  void SetPoliciesLoaded(int64_t count);
  // Replaces the shardplan_model_info series with one per version in `models` and in
  // `policies` (kind "policy", default "false").
  void SetModelInfo(const std::vector<ModelRegistry::Entry>& models,
                    const std::vector<PolicyRegistry::Entry>& policies = {});
  // Creates the shardplan_model_load_failures_total series of `reasons` at 0 (so that rate()
  // sees their first refusal).
  void DeclareModelLoadFailureReasons(const std::vector<std::string>& reasons);
  // One models_dir scan ended: `result` is "ok", "refusals" or "error"; one bundle was refused
  // for a reason not seen before per entry of `new_refusal_reasons` (its ModelLoadFailureReason),
  // `refused` in all.
  void RecordModelReload(absl::string_view result,
                         const std::vector<std::string>& new_refusal_reasons, int64_t refused);
  // One plan-store call (`operation`: insert, update, get_by_key, ...) ended with `code`.
  void RecordStoreCall(absl::string_view operation, absl::StatusCode code);
  // Retention deleted `count` finished records from the plan store (StorePruner).
  void RecordStorePruned(int64_t count);
  // The size bound (store_max_bytes) deleted `count` finished keyless records.
  void RecordStoreSizePruned(int64_t count);
  // What the store's records hold (PlanStore::Bytes): in all, and what size pruning keeps.
  void SetStoreBytes(int64_t total, int64_t kept);
  // A keyless plan was served but not stored: its record exceeds store_max_plan_bytes.
  void RecordStoreOversizedPlan();
  // A stored record was found damaged (counted once per record); the store turns unhealthy.
  void RecordStoreDamagedRecord();
  // A record from before checksums was read (served unverified).
  void RecordStoreUnverifiedRead();
  // The start-up check ended with `result`: "ok", "damaged" (the store turns unhealthy),
  // "unfinished" (its time bound) or "error".
  void RecordStoreCheck(absl::string_view result);
  // A job found unfinished at start-up was resumed ("resumed") or marked failed ("failed").
  void RecordJobRecovery(absl::string_view outcome);
  // A keyed Plan call was answered with the key's stored plan.
  void RecordJobKeyHit();
  // A call to `method` ("package.Service/Method") was refused with `code` before any handler.
  void RecordAuthRejection(absl::string_view code, absl::string_view method);
  void SetJobQueueCapacity(int64_t capacity);
  // A Plan call joined an identical request's computation in flight (SingleFlight).
  void RecordSingleFlightJoin();
  // `tables` tables sent without an access histogram were given the typical one to be costed.
  void RecordImputedHistograms(int64_t tables);
  // A request's plan carries `warnings` (counted by code).
  void RecordPlanWarnings(const std::vector<PlanWarning>& warnings);
  // A measured cost of a plan `model` predicted was reported; `mean_abs_relative_error` is the
  // version's error over its recent reports (MeasurementLedger).
  void RecordMeasurement(const std::string& model, double mean_abs_relative_error);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& rpc_requests_;
  prometheus::Family<prometheus::Histogram>& rpc_duration_;
  prometheus::Family<prometheus::Gauge>& rpcs_in_flight_;
  prometheus::Family<prometheus::Counter>& plans_;
  prometheus::Family<prometheus::Histogram>& planning_duration_;
  prometheus::Gauge& sync_plans_in_progress_;
  prometheus::Counter& sync_plans_rejected_;
  prometheus::Gauge& work_in_progress_;
  prometheus::Gauge& work_capacity_;
  prometheus::Counter& work_rejected_;
  prometheus::Counter& cache_hits_;
  prometheus::Counter& imputed_histograms_;
  prometheus::Counter& cache_misses_;
  prometheus::Counter& cache_evictions_;
  prometheus::Gauge& cache_bytes_;
  prometheus::Gauge& cache_entries_;
  prometheus::Gauge& queue_depth_;
  prometheus::Gauge& jobs_in_flight_;
  prometheus::Family<prometheus::Counter>& jobs_finished_;
  prometheus::Family<prometheus::Counter>& grpc_calls_;
  prometheus::Gauge& watch_streams_;
  prometheus::Gauge& calls_in_flight_;
  prometheus::Gauge& saturated_gauge_;
  std::atomic<int64_t> calls_{0};
  int64_t saturate_at_ = 0;  // 0: not watched
  int64_t clear_below_ = 0;
  std::function<void(bool)> on_saturation_;
  std::mutex saturation_mu_;  // orders the flips
  bool saturated_ = false;
  std::mutex saturation_callback_mu_;  // orders the callbacks, run outside saturation_mu_
  bool saturation_applied_ = false;    // the state the callback last reported
  // Publishes calls_ and flips the saturation state where it crossed a bound.
  void CheckSaturation();
  prometheus::Gauge& retained_jobs_;
  prometheus::Gauge& retained_job_bytes_;
  prometheus::Family<prometheus::Counter>& jobs_forgotten_;
  prometheus::Gauge& models_loaded_;
  prometheus::Gauge& policies_loaded_;
  prometheus::Family<prometheus::Gauge>& model_info_;
  prometheus::Family<prometheus::Counter>& model_reloads_;
  prometheus::Family<prometheus::Counter>& model_load_failures_;
  prometheus::Gauge& models_refused_;
  prometheus::Family<prometheus::Counter>& store_calls_;
  prometheus::Counter& store_pruned_;
  prometheus::Counter& store_size_pruned_;
  prometheus::Gauge& store_bytes_;
  prometheus::Gauge& store_kept_bytes_;
  prometheus::Counter& store_oversized_;
  prometheus::Counter& store_damaged_;
  prometheus::Counter& store_unverified_;
  prometheus::Family<prometheus::Counter>& store_checks_;
  prometheus::Gauge& store_healthy_;
  prometheus::Family<prometheus::Counter>& jobs_recovered_;
  prometheus::Counter& job_key_hits_;
  prometheus::Family<prometheus::Counter>& auth_rejections_;
  prometheus::Gauge& queue_capacity_;
  prometheus::Counter& singleflight_joins_;
  prometheus::Family<prometheus::Counter>& plan_warnings_;
  prometheus::Family<prometheus::Counter>& model_measurements_;
  prometheus::Family<prometheus::Gauge>& model_prediction_error_;
  std::mutex model_info_mu_;  // SetModelInfo replaces the series as one step
  std::vector<prometheus::Gauge*> model_info_series_;
  std::shared_ptr<prometheus::Collectable> process_;
  std::shared_ptr<prometheus::Collectable> log_lines_;
};

// The HTTP endpoint serving `registry` at /metrics on `address` ("host:port", port 0 picks a
// free one). UNAVAILABLE when the address cannot be bound.
class MetricsEndpoint {
 public:
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& address, std::shared_ptr<prometheus::Registry> registry);
  // The same for several collectables (ServerMetrics::collectables()).
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& address,
      const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables);

  int port() const { return port_; }

 private:
  MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer, int port,
                  std::vector<std::shared_ptr<prometheus::Collectable>> collectables)
      : collectables_(std::move(collectables)), exposer_(std::move(exposer)), port_(port) {}

  // The exposer holds weak pointers: these keep the collectables alive while it serves (and
  // are destroyed after it).
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_METRICS_H_
