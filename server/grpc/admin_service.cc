#include "server/grpc/admin_service.h"

#include "absl/strings/str_cat.h"
#include "server/grpc/rpc_handler.h"

namespace shardplan {

void ReloadReportToProto(const ModelReloadReport& report, v1::ReloadModelsResponse* proto) {
  proto->Clear();
  for (const std::string& id : report.loaded) proto->add_loaded(id);
  for (const std::string& id : report.unchanged) proto->add_unchanged(id);
  for (const std::string& id : report.removed) proto->add_removed(id);
  for (const std::string& id : report.policies_loaded) proto->add_policies_loaded(id);
  for (const std::string& id : report.policies_unchanged) proto->add_policies_unchanged(id);
  for (const std::string& id : report.policies_removed) proto->add_policies_removed(id);
  for (const ModelReloadReport::Refusal& refusal : report.refused) {
    v1::RefusedModel* refused = proto->add_refused();
    refused->set_directory(refusal.directory);
    refused->set_reason(refusal.reason);
  }
}

grpc::Status AdminServiceImpl::ReloadModels(grpc::ServerContext* context,
                                            const v1::ReloadModelsRequest* /*request*/,
                                            v1::ReloadModelsResponse* response) {
  return Handle(*context, "ReloadModels", [&]() -> absl::Status {
    absl::StatusOr<ModelReloadReport> report = reloader_->ReloadNow();
    if (!report.ok()) return report.status();
    ReloadReportToProto(*report, response);
    return absl::OkStatus();
  });
}

grpc::Status AdminServiceImpl::DeletePlan(grpc::ServerContext* context,
                                          const v1::DeletePlanRequest* request,
                                          v1::DeletePlanResponse* response) {
  return Handle(*context, "DeletePlan", [&](RequestLog& log) -> absl::Status {
    log.job_id = request->job_id();
    absl::StatusOr<std::string> deleted =
        ledger_->DeleteFinished(request->job_id(), request->job_key());
    if (!deleted.ok()) return deleted.status();
    log.job_id = *deleted;
    response->set_job_id(*deleted);
    return absl::OkStatus();
  });
}

}  // namespace shardplan
