#include "server/grpc/planner_service.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "planner/domain/access_figures.h"
#include "server/grpc/proto_conversion.h"
#include "server/grpc/rpc_handler.h"
#include "server/request_proto.h"
#include "server/result_proto.h"
#include "wire/access_figures_proto.h"
#include "wire/plan_proto.h"
#include "wire/task_proto.h"

namespace shardplan {
namespace {

using SteadyClock = std::chrono::steady_clock;

// The call's deadline on the steady clock planners use; none when the client set none.
std::optional<SteadyClock::time_point> SteadyDeadline(const grpc::ServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return std::nullopt;
  const auto remaining = deadline - std::chrono::system_clock::now();
  if (remaining > std::chrono::hours(24 * 365)) return std::nullopt;  // avoids overflow
  return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(remaining);
}

void AnswerToProto(const PlanAnswer& answer, v1::PlanResponse* response) {
  *response->mutable_plan() = ResultToProto(answer.result);
  response->set_cache_hit(answer.result.cache_hit);
  response->set_from_store(answer.from_store);
  response->set_joined_in_flight(answer.result.joined);
  response->set_job_id(answer.job_id);
}

// The devices a task names, before conversion checks them: its device count or its per-device
// capacities, whichever is larger.
int64_t DevicesOf(const v1::Task& task) {
  return std::max<int64_t>(task.topology().num_devices(),
                           task.topology().per_device_memory_gib_size());
}

absl::Status RequireJobId(const v1::JobRequest& request) {
  if (request.job_id().empty()) return absl::InvalidArgumentError("job_id: required");
  return absl::OkStatus();
}

}  // namespace

PlannerServiceImpl::PlannerServiceImpl(PlanningService* service,
                                       const AlgorithmRegistry* algorithms,
                                       const ModelRegistry* models, const PolicyRegistry* policies,
                                       ServerMetrics* metrics, Identify identify, IsAdmin is_admin)
    : service_(service),
      algorithms_(algorithms),
      models_(models),
      policies_(policies),
      metrics_(metrics),
      identify_(std::move(identify)),
      is_admin_(std::move(is_admin)) {}

template <typename Handler>
grpc::Status PlannerServiceImpl::Handle(grpc::ServerContext& context, absl::string_view method,
                                        Handler&& handler) {
  return HandleRpc(*metrics_, context, method, std::forward<Handler>(handler), identify_);
}

CallContext PlannerServiceImpl::CallOf(const grpc::ServerContext& context) const {
  CallContext call;
  call.deadline = SteadyDeadline(context);
  call.cancelled = [&context] { return context.IsCancelled(); };
  call.client = identify_ ? identify_(context) : std::string(context.peer());
  call.admin = is_admin_ && is_admin_(context);
  return call;
}

absl::StatusOr<PlanningRequest> PlannerServiceImpl::RequestOf(const v1::PlanRequest& proto) const {
  return PlanningRequestFromProto(proto, service_->engine().options().limits);
}

grpc::Status PlannerServiceImpl::Plan(grpc::ServerContext* context, const v1::PlanRequest* request,
                                      v1::PlanResponse* response) {
  return Handle(*context, "Plan", [&](RequestLog& log) -> absl::Status {
    log.algorithm = request->algorithm();
    // Refused before the task is converted, as the service would refuse it after.
    if (absl::Status admitted =
            service_->Admit(PlanningService::CallKind::kPlan, request->job_key());
        !admitted.ok()) {
      return admitted;
    }
    absl::StatusOr<WorkAdmission::Ticket> work =
        service_->AdmitWork(request->task().tables_size(), DevicesOf(request->task()));
    if (!work.ok()) return work.status();
    absl::StatusOr<PlanningRequest> asked = RequestOf(*request);
    if (!asked.ok()) return asked.status();
    absl::StatusOr<PlanAnswer> answer = service_->Plan(*std::move(asked), CallOf(*context));
    if (!answer.ok()) return answer.status();
    log.NoteAnswer(*answer);
    AnswerToProto(*answer, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::Replan(grpc::ServerContext* context,
                                        const v1::PlanRequest* request,
                                        v1::PlanResponse* response) {
  return Handle(*context, "Replan", [&](RequestLog& log) -> absl::Status {
    log.algorithm = request->algorithm();
    // Refused before the task is converted, as the service would refuse it after.
    if (absl::Status admitted =
            service_->Admit(PlanningService::CallKind::kReplan, request->job_key());
        !admitted.ok()) {
      return admitted;
    }
    absl::StatusOr<WorkAdmission::Ticket> work =
        service_->AdmitWork(request->task().tables_size(), DevicesOf(request->task()));
    if (!work.ok()) return work.status();
    absl::StatusOr<PlanningRequest> asked = RequestOf(*request);
    if (!asked.ok()) return asked.status();
    absl::StatusOr<PlanAnswer> answer = service_->Replan(*std::move(asked), CallOf(*context));
    if (!answer.ok()) return answer.status();
    log.NoteAnswer(*answer);
    AnswerToProto(*answer, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::SubmitPlan(grpc::ServerContext* context,
                                            const v1::PlanRequest* request,
                                            v1::SubmitPlanResponse* response) {
  return Handle(*context, "SubmitPlan", [&](RequestLog& log) -> absl::Status {
    log.algorithm = request->algorithm();
    // Refused before the task is converted, as the service would refuse it after.
    if (absl::Status admitted =
            service_->Admit(PlanningService::CallKind::kSubmit, request->job_key());
        !admitted.ok()) {
      return admitted;
    }
    absl::StatusOr<WorkAdmission::Ticket> work =
        service_->AdmitWork(request->task().tables_size(), DevicesOf(request->task()));
    if (!work.ok()) return work.status();
    absl::StatusOr<PlanningRequest> asked = RequestOf(*request);
    if (!asked.ok()) return asked.status();
    absl::StatusOr<JobSnapshot> job = service_->Submit(*std::move(asked), CallOf(*context));
    if (!job.ok()) return job.status();
    log.NoteJob(*job);
    v1::JobStatus status;
    JobSnapshotToProto(*job, &status);
    response->set_job_id(job->id);
    response->set_state(status.state());
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::GetPlan(grpc::ServerContext* context,
                                         const v1::JobRequest* request, v1::JobStatus* response) {
  return Handle(*context, "GetPlan", [&](RequestLog& log) -> absl::Status {
    log.job_id = request->job_id();
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = service_->GetJob(request->job_id(), CallOf(*context));
    if (!job.ok()) return job.status();
    log.NoteJob(*job);
    JobSnapshotToProto(*job, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::WatchPlan(grpc::ServerContext* context,
                                           const v1::JobRequest* request,
                                           grpc::ServerWriter<v1::JobStatus>* writer) {
  return Handle(*context, "WatchPlan", [&](RequestLog& log) -> absl::Status {
    log.job_id = request->job_id();
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    return service_->WatchJob(request->job_id(), CallOf(*context),
                              [writer, &log](const JobSnapshot& job) {
                                log.NoteJob(job);  // the line shows the last state sent
                                v1::JobStatus status;
                                JobSnapshotToProto(job, &status);
                                return writer->Write(status);
                              });
  });
}

grpc::Status PlannerServiceImpl::CancelPlan(grpc::ServerContext* context,
                                            const v1::JobRequest* request,
                                            v1::JobStatus* response) {
  return Handle(*context, "CancelPlan", [&](RequestLog& log) -> absl::Status {
    log.job_id = request->job_id();
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = service_->CancelJob(request->job_id(), CallOf(*context));
    if (!job.ok()) return job.status();
    log.NoteJob(*job);
    JobSnapshotToProto(*job, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::EvaluatePlan(grpc::ServerContext* context,
                                              const v1::EvaluatePlanRequest* request,
                                              v1::EvaluatePlanResponse* response) {
  return Handle(*context, "EvaluatePlan", [&](RequestLog& log) -> absl::Status {
    absl::StatusOr<WorkAdmission::Ticket> work =
        service_->AdmitWork(request->task().tables_size(), DevicesOf(request->task()));
    if (!work.ok()) return work.status();
    absl::StatusOr<Task> task =
        wire::TaskFromProto(request->task(), service_->engine().options().limits);
    if (!task.ok()) return task.status();
    absl::StatusOr<::shardplan::Plan> plan = wire::PlanShardsFromProto(request->plan());
    if (!plan.ok()) return plan.status();
    absl::StatusOr<PlanningResult> evaluated = service_->Evaluate(
        *task, *std::move(plan), request->model(), request->ground_truth(), CallOf(*context));
    if (!evaluated.ok()) return evaluated.status();
    log.NoteResult(*evaluated);
    absl::StatusOr<AccessFigures> figures = AccessFiguresOf(*task, evaluated->plan);
    if (!figures.ok()) return figures.status();
    *response->mutable_plan() = ResultToProto(*evaluated);
    *response->mutable_access_figures() = wire::AccessFiguresToProto(*figures);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ReportMeasurement(grpc::ServerContext* context,
                                                   const v1::ReportMeasurementRequest* request,
                                                   v1::ReportMeasurementResponse* response) {
  return Handle(*context, "ReportMeasurement", [&](RequestLog& log) -> absl::Status {
    absl::StatusOr<WorkAdmission::Ticket> work =
        service_->AdmitWork(request->task().tables_size(), DevicesOf(request->task()));
    if (!work.ok()) return work.status();
    absl::StatusOr<Task> task =
        wire::TaskFromProto(request->task(), service_->engine().options().limits);
    if (!task.ok()) return task.status();
    absl::StatusOr<::shardplan::Plan> plan = wire::PlanShardsFromProto(request->plan());
    if (!plan.ok()) return plan.status();
    const std::string& model =
        request->model().empty() ? request->plan().cost_model() : request->model();
    const std::vector<double> device_ms(request->device_ms().begin(), request->device_ms().end());
    absl::StatusOr<MeasurementReport> report =
        service_->ReportMeasurement(*task, *std::move(plan), model, device_ms, CallOf(*context));
    if (!report.ok()) return report.status();
    log.NoteResult(report->evaluated);
    response->set_cost_model(report->evaluated.plan.cost_model);
    for (const DeviceCost& device : report->evaluated.plan.devices) {
      response->add_predicted_device_ms(device.total_ms);
    }
    response->set_predicted_ms(report->predicted_ms);
    response->set_measured_ms(report->measured_ms);
    response->set_relative_error(report->relative_error);
    response->set_mean_abs_relative_error(report->window.mean_abs_relative_error);
    response->set_reports(report->window.reports);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ListAlgorithms(grpc::ServerContext* context,
                                                const v1::ListAlgorithmsRequest* request,
                                                v1::ListAlgorithmsResponse* response) {
  return Handle(*context, "ListAlgorithms", [&]() -> absl::Status {
    const std::string& default_algorithm = service_->engine().options().default_algorithm;
    for (const Algorithm* algorithm : algorithms_->List()) {
      const AlgorithmInfo& info = algorithm->info();
      AlgorithmInfoToProto(info, info.name == default_algorithm, response->add_algorithms());
    }
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ListModels(grpc::ServerContext* context,
                                            const v1::ListModelsRequest* request,
                                            v1::ListModelsResponse* response) {
  return Handle(*context, "ListModels", [&]() -> absl::Status {
    for (const ModelRegistry::Entry& entry : models_->List()) {
      ModelEntryToProto(entry, response->add_models());
    }
    if (policies_ != nullptr) {
      for (const PolicyRegistry::Entry& entry : policies_->List()) {
        PolicyEntryToProto(entry, response->add_models());
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace shardplan
