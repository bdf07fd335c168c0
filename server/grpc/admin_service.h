#ifndef SHARDPLAN_SERVER_GRPC_ADMIN_SERVICE_H_
#define SHARDPLAN_SERVER_GRPC_ADMIN_SERVICE_H_

#include <utility>

#include "grpcpp/grpcpp.h"
#include "server/grpc/rpc_handler.h"
#include "server/metrics.h"
#include "server/model_reloader.h"
#include "server/plan_ledger.h"
#include "shardplan/v1/admin.grpc.pb.h"

namespace shardplan {

// shardplan.v1.AdminService: operator calls, apart from PlannerService so that an admin
// permission can guard them (docs/security.md).
class AdminServiceImpl final : public v1::AdminService::Service {
 public:
  // All must outlive the service. `identify` names callers in the request log (null: their
  // peer address).
  AdminServiceImpl(ModelReloader* reloader, const PlanLedger* ledger, ServerMetrics* metrics,
                   IdentifyCaller identify = nullptr)
      : reloader_(reloader), ledger_(ledger), metrics_(metrics), identify_(std::move(identify)) {}

  grpc::Status ReloadModels(grpc::ServerContext* context, const v1::ReloadModelsRequest* request,
                            v1::ReloadModelsResponse* response) override;
  grpc::Status DeletePlan(grpc::ServerContext* context, const v1::DeletePlanRequest* request,
                          v1::DeletePlanResponse* response) override;

 private:
  // HandleRpc with this service's metrics and caller names.
  template <typename Handler>
  grpc::Status Handle(grpc::ServerContext& context, absl::string_view method, Handler&& handler) {
    return HandleRpc(*metrics_, context, method, std::forward<Handler>(handler), identify_);
  }

  ModelReloader* const reloader_;
  const PlanLedger* const ledger_;
  ServerMetrics* const metrics_;
  const IdentifyCaller identify_;
};

// The response for `report`.
void ReloadReportToProto(const ModelReloadReport& report, v1::ReloadModelsResponse* proto);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_ADMIN_SERVICE_H_
