#include "server/planner_service.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "server/proto_conversion.h"
#include "server/rpc_handler.h"
#include "server/status_conversion.h"

namespace shardplan {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often a WatchPlan stream checks whether its client went away.
constexpr auto kWatchPollInterval = std::chrono::milliseconds(100);
// How long CancelPlan waits for a running job to stop, so the reply usually shows CANCELLED.
constexpr auto kCancelGrace = std::chrono::seconds(2);

// The call's deadline on the steady clock planners use; none when the client set none.
std::optional<SteadyClock::time_point> SteadyDeadline(const grpc::ServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return std::nullopt;
  const auto remaining = deadline - std::chrono::system_clock::now();
  if (remaining > std::chrono::hours(24 * 365)) return std::nullopt;  // avoids overflow
  return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(remaining);
}

// gRPC also marks a call cancelled when its deadline passes, so a planner stopped that way
// reports CANCELLED; the client is owed DEADLINE_EXCEEDED.
absl::Status StopReason(const absl::Status& status, const StopSignal& stop) {
  if (status.code() == absl::StatusCode::kCancelled && stop.deadline_passed()) {
    return absl::DeadlineExceededError("the call's deadline passed before planning finished");
  }
  return status;
}

absl::Status RequireJobId(const v1::JobRequest& request) {
  if (request.job_id().empty()) return absl::InvalidArgumentError("job_id: required");
  return absl::OkStatus();
}

}  // namespace

PlannerServiceImpl::PlannerServiceImpl(const PlanningEngine* engine, JobManager* jobs,
                                       const AlgorithmRegistry* algorithms,
                                       const ModelRegistry* models, ConcurrencyLimiter* plan_slots,
                                       ServerMetrics* metrics)
    : engine_(engine),
      jobs_(jobs),
      algorithms_(algorithms),
      models_(models),
      plan_slots_(plan_slots),
      metrics_(metrics) {}

template <typename Handler>
grpc::Status PlannerServiceImpl::Handle(absl::string_view method, Handler&& handler) {
  return HandleRpc(*metrics_, method, std::forward<Handler>(handler));
}

absl::Status PlannerServiceImpl::RefuseWhileDraining() const {
  if (draining_.load()) {
    return absl::UnavailableError(
        "the server is shutting down and accepts no new planning work; retry on another "
        "instance");
  }
  return absl::OkStatus();
}

absl::StatusOr<PreparedRequest> PlannerServiceImpl::Prepare(const v1::PlanRequest& request) const {
  absl::StatusOr<PlanningRequest> planning =
      PlanningRequestFromProto(request, engine_->options().limits);
  if (!planning.ok()) return planning.status();
  return engine_->Prepare(*std::move(planning));
}

absl::StatusOr<PlanningResult> PlannerServiceImpl::PlanNow(const grpc::ServerContext& context,
                                                           const PreparedRequest& request) {
  std::optional<ConcurrencyLimiter::Slot> slot = plan_slots_->TryAcquire();
  if (!slot) {
    metrics_->RecordSyncPlanRejected();
    return absl::ResourceExhaustedError(absl::StrCat(
        "max_concurrent_plans: ", plan_slots_->limit(),
        " Plan calls are already planning on this server, its limit; retry later or on another "
        "instance, or queue the request with SubmitPlan"));
  }
  metrics_->RecordSyncPlanStart();
  absl::Cleanup end = [this] { metrics_->RecordSyncPlanEnd(); };
  const StopSignal stop(SteadyDeadline(context), [&context] { return context.IsCancelled(); });
  absl::StatusOr<PlanningResult> result = engine_->Compute(request, stop, nullptr);
  if (!result.ok()) return StopReason(result.status(), stop);
  return result;
}

grpc::Status PlannerServiceImpl::Plan(grpc::ServerContext* context, const v1::PlanRequest* request,
                                      v1::PlanResponse* response) {
  return Handle("Plan", [&]() -> absl::Status {
    if (absl::Status refused = RefuseWhileDraining(); !refused.ok()) return refused;
    absl::StatusOr<PreparedRequest> prepared = Prepare(*request);
    if (!prepared.ok()) return prepared.status();
    // A cache hit does no planning, so it is served whatever max_concurrent_plans allows.
    std::optional<PlanningResult> cached = engine_->CachedResult(*prepared);
    absl::StatusOr<PlanningResult> result =
        cached ? *std::move(cached) : PlanNow(*context, *prepared);
    if (!result.ok()) return result.status();
    PlanToProto(result->plan, response->mutable_plan());
    response->set_cache_hit(result->cache_hit);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::SubmitPlan(grpc::ServerContext* context,
                                            const v1::PlanRequest* request,
                                            v1::SubmitPlanResponse* response) {
  return Handle("SubmitPlan", [&]() -> absl::Status {
    if (absl::Status refused = RefuseWhileDraining(); !refused.ok()) return refused;
    // Bad requests fail here, synchronously, rather than as FAILED jobs.
    absl::StatusOr<PreparedRequest> prepared = Prepare(*request);
    if (!prepared.ok()) return prepared.status();
    auto shared = std::make_shared<const PreparedRequest>(*std::move(prepared));
    const PlanningEngine* engine = engine_;
    absl::StatusOr<JobSnapshot> job = jobs_->Submit(
        [engine, shared](const StopSignal& stop, const JobManager::ProgressFn& progress) {
          return engine->Run(*shared, stop, progress);
        });
    if (!job.ok()) return job.status();
    response->set_job_id(job->id);
    response->set_state(v1::QUEUED);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::GetPlan(grpc::ServerContext* context,
                                         const v1::JobRequest* request, v1::JobStatus* response) {
  return Handle("GetPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = jobs_->Get(request->job_id());
    if (!job.ok()) return job.status();
    JobSnapshotToProto(*job, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::WatchPlan(grpc::ServerContext* context,
                                           const v1::JobRequest* request,
                                           grpc::ServerWriter<v1::JobStatus>* writer) {
  return Handle("WatchPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = jobs_->Get(request->job_id());
    if (!job.ok()) return job.status();
    while (true) {
      v1::JobStatus status;
      JobSnapshotToProto(*job, &status);
      if (!writer->Write(status)) return absl::CancelledError("the client went away");
      if (IsTerminal(job->state)) return absl::OkStatus();
      const uint64_t seen = job->version;
      while (job->version == seen) {
        if (context->IsCancelled()) return absl::CancelledError("the client went away");
        job =
            jobs_->WaitForChange(request->job_id(), seen, SteadyClock::now() + kWatchPollInterval);
        if (!job.ok()) return job.status();
      }
    }
  });
}

grpc::Status PlannerServiceImpl::CancelPlan(grpc::ServerContext* context,
                                            const v1::JobRequest* request,
                                            v1::JobStatus* response) {
  return Handle("CancelPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = jobs_->Cancel(request->job_id());
    if (!job.ok()) return job.status();
    // A running job stops at its planner's next check; wait briefly so the reply shows the
    // final state in the common case.
    SteadyClock::time_point until = SteadyClock::now() + kCancelGrace;
    if (std::optional<SteadyClock::time_point> deadline = SteadyDeadline(*context)) {
      until = std::min(until, *deadline);
    }
    while (!IsTerminal(job->state) && SteadyClock::now() < until && !context->IsCancelled()) {
      absl::StatusOr<JobSnapshot> next =
          jobs_->WaitForChange(request->job_id(), job->version, until);
      if (!next.ok()) break;  // evicted meanwhile: report what we saw
      job = std::move(next);
    }
    JobSnapshotToProto(*job, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::EvaluatePlan(grpc::ServerContext* context,
                                              const v1::EvaluatePlanRequest* request,
                                              v1::EvaluatePlanResponse* response) {
  return Handle("EvaluatePlan", [&]() -> absl::Status {
    absl::StatusOr<Task> task = TaskFromProto(request->task(), engine_->options().limits);
    if (!task.ok()) return task.status();
    absl::StatusOr<::shardplan::Plan> plan = PlanShardsFromProto(request->plan());
    if (!plan.ok()) return plan.status();
    absl::StatusOr<::shardplan::Plan> evaluated =
        engine_->Evaluate(*task, *std::move(plan), request->model());
    if (!evaluated.ok()) return evaluated.status();
    PlanToProto(*evaluated, response->mutable_plan());
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ListAlgorithms(grpc::ServerContext* context,
                                                const v1::ListAlgorithmsRequest* request,
                                                v1::ListAlgorithmsResponse* response) {
  return Handle("ListAlgorithms", [&]() -> absl::Status {
    for (const Planner* planner : algorithms_->List()) {
      const AlgorithmInfo& info = planner->info();
      AlgorithmInfoToProto(info, info.name == engine_->options().default_algorithm,
                           response->add_algorithms());
    }
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ListModels(grpc::ServerContext* context,
                                            const v1::ListModelsRequest* request,
                                            v1::ListModelsResponse* response) {
  return Handle("ListModels", [&]() -> absl::Status {
    for (const ModelRegistry::Entry& entry : models_->List()) {
      ModelEntryToProto(entry, response->add_models());
    }
    return absl::OkStatus();
  });
}

}  // namespace shardplan
