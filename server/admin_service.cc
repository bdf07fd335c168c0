#include "server/admin_service.h"

#include "absl/strings/str_cat.h"
#include "server/rpc_handler.h"

namespace shardplan {

void ReloadReportToProto(const ModelReloadReport& report, v1::ReloadModelsResponse* proto) {
  proto->Clear();
  for (const std::string& id : report.loaded) proto->add_loaded(id);
  for (const std::string& id : report.unchanged) proto->add_unchanged(id);
  for (const std::string& id : report.removed) proto->add_removed(id);
  for (const ModelReloadReport::Refusal& refusal : report.refused) {
    v1::RefusedModel* refused = proto->add_refused();
    refused->set_directory(refusal.directory);
    refused->set_reason(refusal.reason);
  }
}

grpc::Status AdminServiceImpl::ReloadModels(grpc::ServerContext* context,
                                            const v1::ReloadModelsRequest* /*request*/,
                                            v1::ReloadModelsResponse* response) {
  return HandleRpc(*metrics_, *context, "ReloadModels", [&]() -> absl::Status {
    absl::StatusOr<ModelReloadReport> report = reloader_->ReloadNow();
    if (!report.ok()) return report.status();
    ReloadReportToProto(*report, response);
    return absl::OkStatus();
  });
}

grpc::Status AdminServiceImpl::DeletePlan(grpc::ServerContext* context,
                                          const v1::DeletePlanRequest* request,
                                          v1::DeletePlanResponse* response) {
  return HandleRpc(*metrics_, *context, "DeletePlan", [&]() -> absl::Status {
    const bool by_id = !request->job_id().empty();
    if (by_id == !request->job_key().empty()) {
      return absl::InvalidArgumentError("job_id, job_key: set exactly one");
    }
    if (!ledger_->enabled()) {
      return absl::FailedPreconditionError("store: this server keeps no plan store");
    }
    absl::StatusOr<std::optional<PlanRecord>> found =
        by_id ? ledger_->FindJob(request->job_id()) : ledger_->FindKeyed(request->job_key());
    if (!found.ok()) return found.status();
    if (!found->has_value()) {
      return absl::NotFoundError(by_id ? absl::StrCat("job_id: no stored plan \"",
                                                      request->job_id(), "\"")
                                       : absl::StrCat("job_key: no stored plan \"",
                                                      request->job_key(), "\""));
    }
    const PlanRecord& record = **found;
    if (record.status == JobStateName(JobState::kQueued) ||
        record.status == JobStateName(JobState::kRunning)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", record.job_id, " is ", record.status, "; cancel it before deleting it"));
    }
    if (absl::Status deleted = ledger_->Delete(record.job_id); !deleted.ok()) return deleted;
    response->set_job_id(record.job_id);
    return absl::OkStatus();
  });
}

}  // namespace shardplan
