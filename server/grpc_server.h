#ifndef SHARDPLAN_SERVER_GRPC_SERVER_H_
#define SHARDPLAN_SERVER_GRPC_SERVER_H_

#include <chrono>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "planner/framework/algorithm_registry.h"
#include "server/admin_service.h"
#include "server/concurrency_limiter.h"
#include "server/instance_lock.h"
#include "server/job_manager.h"
#include "server/metrics.h"
#include "server/model_reloader.h"
#include "server/plan_cache.h"
#include "server/plan_ledger.h"
#include "server/planner_service.h"
#include "server/planning_engine.h"
#include "server/security/client_limiter.h"
#include "server/security/token_authenticator.h"
#include "server/server_config.h"
#include "server/store/plan_store.h"
#include "server/store_pruner.h"

namespace shardplan {

// The whole shardplan-server: registries, the model bundles of models_dir (loaded at start,
// polled and reloaded on ReloadModels), plan cache, planning engine, job queue, the gRPC server
// (PlannerService, AdminService, grpc.health.v1, reflection) and the metrics endpoint.
class ShardplanServer {
 public:
  // Builds everything, loads models_dir, opens the plan store and resumes the jobs it holds
  // unfinished, and starts listening. UNAVAILABLE also when the store cannot be opened,
  // FAILED_PRECONDITION when another server holds its SQLite file. UNAVAILABLE when an address
  // cannot be bound, INVALID_ARGUMENT when the default algorithm or model does not exist,
  // FAILED_PRECONDITION when models_dir exists but cannot be listed. Refused bundles are
  // logged and do not stop the start.
  static absl::StatusOr<std::unique_ptr<ShardplanServer>> Start(const ServerConfig& config);

  ~ShardplanServer();  // Drain(0) if Drain was not called

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_endpoint_ ? metrics_endpoint_->port() : 0; }
  int health_port() const { return health_port_; }  // 0 when health_address is ""

  // Graceful shutdown: health turns NOT_SERVING, Plan and SubmitPlan answer UNAVAILABLE, queued
  // and running jobs and in-flight calls get `timeout` to finish; then what remains is
  // cancelled. Returns once everything stopped. Later calls return at once.
  void Drain(std::chrono::steady_clock::duration timeout);

  // Re-reads auth_tokens_file (SIGHUP). On error the old tokens stay in force. OK and nothing
  // done when tokens are off.
  absl::Status ReloadTokens();

 private:
  explicit ShardplanServer(const ServerConfig& config);
  // Opens config_.store (locking an SQLite file first) and builds the ledger over it.
  absl::Status OpenStore();

  const ServerConfig config_;
  // Declared in dependency order: members are destroyed bottom-up, users before what they use.
  ServerMetrics metrics_;
  AlgorithmRegistry algorithms_;
  ModelRegistry models_;
  std::unique_ptr<ModelReloader> reloader_;  // stopped in Drain, before what it feeds
  PlanCache cache_;
  std::unique_ptr<InstanceLock> store_lock_;  // an SQLite store's file, one server per file
  std::unique_ptr<PlanStore> store_;          // null when config.store is ""
  std::unique_ptr<PlanLedger> ledger_;        // used by job work closures: outlives jobs_
  std::unique_ptr<StorePruner> pruner_;       // null without a store or with retention 0
  ConcurrencyLimiter plan_slots_;  // max_concurrent_plans
  ClientLimiter client_limits_;    // max_requests_per_client; outlives the jobs holding slots
  std::shared_ptr<TokenAuthenticator> authenticator_;  // null when auth_tokens_file is ""
  std::unique_ptr<PlanningEngine> engine_;
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<PlannerServiceImpl> service_;
  std::unique_ptr<AdminServiceImpl> admin_service_;
  std::unique_ptr<grpc::Server> server_;
  // health_address: grpc.health.v1 only, plaintext, mirroring server_'s status.
  std::unique_ptr<grpc::CallbackGenericService> health_fallback_;
  std::unique_ptr<grpc::Server> health_server_;
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  int grpc_port_ = 0;
  int health_port_ = 0;
  bool started_ = false;  // Start completed
  std::mutex drain_mu_;
  bool drained_ = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_SERVER_H_
