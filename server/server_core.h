#ifndef SHARDPLAN_SERVER_SERVER_CORE_H_
#define SHARDPLAN_SERVER_SERVER_CORE_H_

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "planner/framework/algorithm_registry.h"
#include "server/concurrency_limiter.h"
#include "server/instance_lock.h"
#include "server/job_manager.h"
#include "server/metrics.h"
#include "server/model_reloader.h"
#include "server/plan_cache.h"
#include "server/plan_ledger.h"
#include "server/planning_engine.h"
#include "server/planning_service.h"
#include "server/security/client_limiter.h"
#include "server/server_config.h"
#include "server/store/plan_store.h"
#include "server/store_pruner.h"
#include "server/stream_limits.h"

namespace shardplan {

// Everything shardplan-server is, but its transport: the registries and the model and policy
// bundles of models_dir (loaded at start, polled, reloaded on demand), the plan cache, the
// planning engine, the plan store and its ledger, the job queue (with the store's unfinished
// jobs resumed), the limits, and the PlanningService over them. The gRPC server
// (server/grpc/grpc_server.h) serves it; anything else could.
class ServerCore {
 public:
  // Builds everything, loads models_dir, opens the plan store and resumes the jobs it holds
  // unfinished. UNAVAILABLE when the store cannot be opened, FAILED_PRECONDITION when another
  // server holds its SQLite file, INVALID_ARGUMENT when the default algorithm or model does not
  // exist, FAILED_PRECONDITION when models_dir exists but cannot be listed. Refused bundles are
  // logged and do not stop the start. `config` must have passed ValidateServerConfig.
  static absl::StatusOr<std::unique_ptr<ServerCore>> Create(const ServerConfig& config);

  ~ServerCore();  // Shutdown()

  // Starts what runs in the background once the server serves: the model reloader's polling
  // and the plan store's retention. StopBackground stops both; a model scan stuck in the
  // filesystem is abandoned after a bounded wait (ModelReloader::Stop) and changes nothing after.
  void StartBackground();
  void StopBackground();

  // Draining, in steps the transport interleaves with its own: StopAccepting (Plan, Replan
  // and SubmitPlan answer UNAVAILABLE; queued and running jobs go on), WaitForJobs, then
  // CancelJobs for what is left (they stay unfinished in the store, resumed at the next
  // start), Shutdown last.
  void StopAccepting();
  bool WaitForJobs(std::chrono::steady_clock::time_point deadline);
  void CancelJobs(std::chrono::steady_clock::duration grace);
  // StopBackground, and stops the job workers. Idempotent.
  void Shutdown();

  ServerMetrics& metrics() { return metrics_; }
  const AlgorithmRegistry& algorithms() const { return algorithms_; }
  const ModelRegistry& models() const { return models_; }
  const PolicyRegistry& policies() const { return policies_; }
  ModelReloader& reloader() { return *reloader_; }
  const PlanLedger& ledger() const { return *ledger_; }
  PlanningService& service() { return *service_; }
  const JobManager& jobs() const { return *jobs_; }

 private:
  explicit ServerCore(const ServerConfig& config);
  // Opens config_.store (locking an SQLite file first) and builds the ledger over it.
  absl::Status OpenStore();
  // The store's start-up integrity check (PlanStore::QuickCheck): logged, counted, and
  // shardplan_store_healthy 0 when it finds damage; the server starts either way.
  void CheckStore();

  const ServerConfig config_;
  // Declared in dependency order: members are destroyed bottom-up, users before what they use.
  ServerMetrics metrics_;
  AlgorithmRegistry algorithms_;
  ModelRegistry models_;
  PolicyRegistry policies_;  // the trained policies of models_dir (docs/policies.md)
  std::unique_ptr<ModelReloader> reloader_;  // stopped in Shutdown, before what it feeds
  PlanCache cache_;
  std::unique_ptr<InstanceLock> store_lock_;  // an SQLite store's file, one server per file
  std::unique_ptr<PlanStore> store_;          // null when config.store is ""
  std::unique_ptr<PlanLedger> ledger_;        // used by job work closures: outlives jobs_
  std::unique_ptr<StorePruner> pruner_;       // null without a store or without retention and bound
  ConcurrencyLimiter plan_slots_;  // max_concurrent_plans
  ConcurrencyLimiter work_budget_;      // max_concurrent_work
  ClientRateLimiter measurement_rate_;  // max_measurements_per_client_per_minute
  ClientLimiter client_limits_;    // max_requests_per_client; outlives the jobs holding slots
  StreamLimits stream_limits_;     // max_streams, max_streams_per_client
  std::unique_ptr<PlanningEngine> engine_;
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<PlanningService> service_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SERVER_CORE_H_
