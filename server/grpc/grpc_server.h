#ifndef SHARDPLAN_SERVER_GRPC_GRPC_SERVER_H_
#define SHARDPLAN_SERVER_GRPC_GRPC_SERVER_H_

#include <chrono>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "server/grpc/admin_service.h"
#include "server/grpc/planner_service.h"
#include "server/grpc/token_authenticator.h"
#include "server/metrics.h"
#include "server/server_config.h"
#include "server/server_core.h"

namespace shardplan {

// The whole shardplan-server: the ServerCore served over gRPC (PlannerService, AdminService,
// grpc.health.v1, reflection; TLS and bearer tokens), with the metrics endpoint.
class ShardplanServer {
 public:
  // Builds the core (server/server_core.h, whose errors it returns) and starts listening.
  // INVALID_ARGUMENT for an invalid config, UNAVAILABLE when an address cannot be bound.
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
  explicit ShardplanServer(const ServerConfig& config) : config_(config) {}

  const ServerConfig config_;
  // Declared in dependency order: members are destroyed bottom-up, users before what they use.
  std::unique_ptr<ServerCore> core_;
  std::shared_ptr<TokenAuthenticator> authenticator_;  // null when auth_tokens_file is ""
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

#endif  // SHARDPLAN_SERVER_GRPC_GRPC_SERVER_H_
