#ifndef SHARDPLAN_SERVER_GRPC_CALL_OUTCOME_INTERCEPTOR_H_
#define SHARDPLAN_SERVER_GRPC_CALL_OUTCOME_INTERCEPTOR_H_

#include <memory>
#include <vector>

#include "grpcpp/support/server_interceptor.h"
#include "server/metrics.h"

namespace shardplan {

// Counts every call's final status as gRPC sends it (shardplan_grpc_calls_total{method,code}),
// calls that never reach a handler included: a request whose bytes do not parse is answered
// INTERNAL by gRPC's generated code before any handler runs, so HandleRpc neither counts nor
// logs it. Those are logged here, as a warning with their method (the log's repeat limit
// bounds a flood). `metrics` must outlive the server.
class CallOutcomeInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallOutcomeInterceptorFactory(ServerMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  ServerMetrics* const metrics_;
};

// The factories ServerBuilder::experimental().SetInterceptorCreators takes.
std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
CallOutcomeInterceptors(ServerMetrics* metrics);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_CALL_OUTCOME_INTERCEPTOR_H_
