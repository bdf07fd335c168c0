#include "server/planner_service.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/durable_jobs.h"
#include "server/planning_time_cap.h"
#include "server/proto_conversion.h"
#include "server/rpc_handler.h"
#include "server/status_conversion.h"
#include "wire/plan_proto.h"
#include "wire/task_proto.h"

namespace shardplan {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often a WatchPlan stream checks whether its client went away.
constexpr auto kWatchPollInterval = std::chrono::milliseconds(100);
// How often a planning Plan call asks gRPC whether its client went away. IsCancelled takes a
// lock, and planners check their stop signal before every greedy run (thousands of times a
// plan): asking on every check cost more than half the server's planning CPU.
constexpr auto kCancellationPollInterval = std::chrono::milliseconds(1);
// When a Plan call refused for want of a planning slot may try again: a plan takes tens of ms.
constexpr absl::Duration kPlanSlotRetryAfter = absl::Milliseconds(100);
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

// Why a Plan call that waits stops waiting: its client went away or its deadline passed.
absl::Status CallStopped(const grpc::ServerContext& context) {
  if (!context.IsCancelled()) return absl::OkStatus();
  const std::optional<SteadyClock::time_point> deadline = SteadyDeadline(context);
  if (deadline && SteadyClock::now() >= *deadline) {
    return absl::DeadlineExceededError("the call's deadline passed before planning finished");
  }
  return absl::CancelledError("the client went away");
}

// Whether the outcome of one Plan call answers an identical call waiting for it: a complete
// plan, or an error of the request itself. A plan a deadline cut short, or a refusal or stop
// of the leader's own call, answers only that call.
bool AnswersIdenticalRequests(const absl::StatusOr<PlanningResult>& outcome) {
  if (outcome.ok()) return !outcome->plan.stats.anytime_result;
  return outcome.status().code() == absl::StatusCode::kFailedPrecondition ||
         outcome.status().code() == absl::StatusCode::kInvalidArgument;
}

// How often WatchPlan re-reads a job that only the plan store knows (another replica's).
constexpr auto kStoreWatchPollInterval = std::chrono::milliseconds(500);

absl::Status RequireJobId(const v1::JobRequest& request) {
  if (request.job_id().empty()) return absl::InvalidArgumentError("job_id: required");
  return absl::OkStatus();
}

absl::Status DifferentKeyedRequest(const PlanRecord& record) {
  return absl::FailedPreconditionError(absl::StrCat(
      "job_key: \"", record.job_key, "\" already names the plan of a different request (job ",
      record.job_id, "); send the same request to get that plan, call Replan to replace it, or "
      "use another job_key"));
}

}  // namespace

PlannerServiceImpl::PlannerServiceImpl(const PlanningEngine* engine, JobManager* jobs,
                                       const PlanLedger* ledger,
                                       const AlgorithmRegistry* algorithms,
                                       const ModelRegistry* models, ConcurrencyLimiter* plan_slots,
                                       ServerMetrics* metrics, PlannerServiceLimits limits)
    : engine_(engine),
      jobs_(jobs),
      ledger_(ledger),
      algorithms_(algorithms),
      models_(models),
      plan_slots_(plan_slots),
      metrics_(metrics),
      limits_(std::move(limits)) {}

absl::StatusOr<ClientLimiter::Slot> PlannerServiceImpl::AcquireClientSlot(
    const grpc::ServerContext& context) {
  ClientLimiter* clients = limits_.clients != nullptr ? limits_.clients : &no_client_limit_;
  return clients->Acquire(limits_.identify ? limits_.identify(context)
                                           : std::string(context.peer()));
}

template <typename Handler>
grpc::Status PlannerServiceImpl::Handle(grpc::ServerContext& context, absl::string_view method,
                                        Handler&& handler) {
  return HandleRpc(*metrics_, context, method, std::forward<Handler>(handler));
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
  // Planning is what max_requests_per_client bounds: cache hits, stored plans and calls that
  // wait for an identical plan in flight do none.
  absl::StatusOr<ClientLimiter::Slot> client_slot = AcquireClientSlot(context);
  if (!client_slot.ok()) return client_slot.status();
  std::optional<ConcurrencyLimiter::Slot> slot = plan_slots_->TryAcquire();
  if (!slot) {
    metrics_->RecordSyncPlanRejected();
    return WithRetryAfter(
        absl::ResourceExhaustedError(absl::StrCat(
            "max_concurrent_plans: ", plan_slots_->limit(),
            " Plan calls are already planning on this server, its limit; retry later or on "
            "another instance, or queue the request with SubmitPlan")),
        kPlanSlotRetryAfter);
  }
  metrics_->RecordSyncPlanStart();
  absl::Cleanup end = [this] { metrics_->RecordSyncPlanEnd(); };
  StopSignal stop(SteadyDeadline(context), [&context] { return context.IsCancelled(); },
                  kCancellationPollInterval);
  const std::optional<SteadyClock::time_point> cap =
      CapPlanningTime(stop, limits_.max_planning_time_ms);
  absl::StatusOr<PlanningResult> result = engine_->Compute(request, stop, nullptr);
  if (!result.ok()) {
    return CapReason(StopReason(result.status(), stop), cap, limits_.max_planning_time_ms);
  }
  return result;
}

absl::StatusOr<PlanningResult> PlannerServiceImpl::PlanOnce(const grpc::ServerContext& context,
                                                            const PreparedRequest& request) {
  // A request that bypasses the cache asks for a computation of its own.
  if (request.bypass_cache || request.cache_key.empty()) return PlanNow(context, request);
  SingleFlight<PlanningResult>::Result shared = flights_.Do(
      request.cache_key, [&] { return PlanNow(context, request); }, AnswersIdenticalRequests,
      [&] { return CallStopped(context); }, [this] { metrics_->RecordSingleFlightJoin(); });
  if (shared.joined && shared.outcome.ok()) shared.outcome->joined = true;
  return std::move(shared.outcome);
}

absl::StatusOr<PlannerServiceImpl::KeyedLookup> PlannerServiceImpl::LookUpJobKey(
    const v1::PlanRequest& request) const {
  KeyedLookup lookup;
  if (request.job_key().empty()) return lookup;
  if (absl::Status valid = ValidateJobKey(request.job_key()); !valid.ok()) return valid;
  if (!ledger_->enabled()) {
    return absl::FailedPreconditionError(
        "job_key: this server keeps no plan store (its `store` setting is empty), so it cannot "
        "keep named plans");
  }
  absl::StatusOr<std::optional<PlanRecord>> found = ledger_->FindKeyed(request.job_key());
  if (!found.ok()) {
    return absl::Status(found.status().code(),
                        absl::StrCat("job_key: the plan store cannot be read, so the plan named \"",
                                     request.job_key(), "\" cannot be looked up; retry later: ",
                                     found.status().message()));
  }
  if (!found->has_value()) return lookup;
  lookup.record = **std::move(found);
  const std::string& status = lookup.record->status;
  if (status == JobStateName(JobState::kFailed) || status == JobStateName(JobState::kCancelled)) {
    lookup.replace = true;  // an attempt that left no plan: the key is free again
    return lookup;
  }
  absl::StatusOr<v1::PlanRequest> stored = RecordRequest(*lookup.record);
  if (!stored.ok()) return stored.status();
  const TaskLimits& limits = engine_->options().limits;
  absl::StatusOr<std::string> asked = KeyedRequestFingerprint(request, limits);
  if (!asked.ok()) return asked.status();
  absl::StatusOr<std::string> held = KeyedRequestFingerprint(*stored, limits);
  if (!held.ok() || *held != *asked) return DifferentKeyedRequest(*lookup.record);
  return lookup;
}

absl::Status PlannerServiceImpl::AnswerFromRecord(const PlanRecord& record,
                                                  v1::PlanResponse* response) const {
  absl::StatusOr<JobSnapshot> snapshot = RecordToSnapshot(record);
  if (!snapshot.ok()) return snapshot.status();
  *response->mutable_plan() = wire::PlanToProto(snapshot->result->plan);
  response->set_from_store(true);
  response->set_job_id(record.job_id);
  return absl::OkStatus();
}

absl::Status PlannerServiceImpl::PlanAndRecord(const grpc::ServerContext& context,
                                               const v1::PlanRequest& request, bool replace_key,
                                               v1::PlanResponse* response) {
  absl::StatusOr<PreparedRequest> prepared = Prepare(request);
  if (!prepared.ok()) return prepared.status();
  // A cache hit does no planning, so it is served whatever max_concurrent_plans allows; so is
  // a plan for exactly this request that the store kept (e.g. from before a restart).
  std::optional<PlanningResult> cached = engine_->CachedResult(*prepared);
  bool stored = false;
  if (!cached && !prepared->bypass_cache) {
    absl::StatusOr<std::optional<PlanningResult>> kept = ledger_->FindPlan(*prepared);
    if (kept.ok() && kept->has_value()) {
      cached = **std::move(kept);
      stored = true;
    }  // an unreadable store only costs a plan
  }
  absl::StatusOr<PlanningResult> result =
      cached ? *std::move(cached) : PlanOnce(context, *prepared);
  if (!result.ok()) return result.status();

  const bool keyed = !request.job_key().empty();
  // Keyless plans are recorded when computed here and complete (a joined call's plan was
  // recorded by the call that computed it); an anytime plan stands only for the call that
  // asked for it, as in the cache.
  const bool computed_here = !result->cache_hit && !stored && !result->joined;
  if (keyed || (computed_here && !result->plan.stats.anytime_result)) {
    absl::StatusOr<std::string> job_id =
        ledger_->RecordPlan(request, *prepared, *result, replace_key);
    if (keyed && job_id.status().code() == absl::StatusCode::kAlreadyExists) {
      // Another call took the key first: its plan is the key's plan.
      absl::StatusOr<KeyedLookup> winner = LookUpJobKey(request);
      if (!winner.ok()) return winner.status();
      if (winner->record && winner->record->status == JobStateName(JobState::kSucceeded)) {
        metrics_->RecordJobKeyHit();
        return AnswerFromRecord(*winner->record, response);
      }
    }
    if (keyed && !job_id.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "job_key: the plan could not be stored under \"", request.job_key(),
          "\", so the key would not bring it back; nothing was stored: ", job_id.status().message()));
    }
    if (job_id.ok()) response->set_job_id(*job_id);
  }
  *response->mutable_plan() = wire::PlanToProto(result->plan);
  response->set_cache_hit(result->cache_hit || stored);
  response->set_from_store(stored);
  response->set_joined_in_flight(result->joined);
  return absl::OkStatus();
}

grpc::Status PlannerServiceImpl::Plan(grpc::ServerContext* context, const v1::PlanRequest* request,
                                      v1::PlanResponse* response) {
  return Handle(*context, "Plan", [&]() -> absl::Status {
    if (absl::Status refused = RefuseWhileDraining(); !refused.ok()) return refused;
    absl::StatusOr<KeyedLookup> keyed = LookUpJobKey(*request);
    if (!keyed.ok()) return keyed.status();
    if (keyed->record && !keyed->replace) {
      if (keyed->record->status != JobStateName(JobState::kSucceeded)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "job_key: \"", request->job_key(), "\" is job ", keyed->record->job_id, ", still ",
            keyed->record->status, "; wait for it with WatchPlan or GetPlan"));
      }
      metrics_->RecordJobKeyHit();
      return AnswerFromRecord(*keyed->record, response);
    }
    return PlanAndRecord(*context, *request, keyed->replace, response);
  });
}

grpc::Status PlannerServiceImpl::Replan(grpc::ServerContext* context,
                                        const v1::PlanRequest* request,
                                        v1::PlanResponse* response) {
  return Handle(*context, "Replan", [&]() -> absl::Status {
    if (absl::Status refused = RefuseWhileDraining(); !refused.ok()) return refused;
    if (request->job_key().empty()) {
      return absl::InvalidArgumentError("job_key: Replan replaces a named plan; set job_key");
    }
    if (absl::Status valid = ValidateJobKey(request->job_key()); !valid.ok()) return valid;
    if (!ledger_->enabled()) {
      return absl::FailedPreconditionError(
          "job_key: this server keeps no plan store (its `store` setting is empty)");
    }
    return PlanAndRecord(*context, *request, /*replace_key=*/true, response);
  });
}

grpc::Status PlannerServiceImpl::SubmitPlan(grpc::ServerContext* context,
                                            const v1::PlanRequest* request,
                                            v1::SubmitPlanResponse* response) {
  return Handle(*context, "SubmitPlan", [&]() -> absl::Status {
    if (absl::Status refused = RefuseWhileDraining(); !refused.ok()) return refused;
    absl::StatusOr<KeyedLookup> keyed = LookUpJobKey(*request);
    if (!keyed.ok()) return keyed.status();
    if (keyed->record && !keyed->replace) {  // the key's job exists: submitting is idempotent
      absl::StatusOr<JobSnapshot> job = RecordToSnapshot(*keyed->record);
      if (!job.ok()) return job.status();
      response->set_job_id(job->id);
      v1::JobStatus status;
      JobSnapshotToProto(*job, &status);
      response->set_state(status.state());
      return absl::OkStatus();
    }
    // Bad requests fail here, synchronously, rather than as FAILED jobs.
    absl::StatusOr<PreparedRequest> prepared = Prepare(*request);
    if (!prepared.ok()) return prepared.status();
    absl::StatusOr<ClientLimiter::Slot> client_slot = AcquireClientSlot(*context);
    if (!client_slot.ok()) return client_slot.status();
    // Recorded before it is queued, so an accepted job is never lost: a restart resumes it.
    const std::string id = NewJobId();
    absl::StatusOr<PlanRecord> recorded =
        ledger_->RecordQueued(id, *request, *prepared, keyed->replace);
    if (!recorded.ok()) {
      if (recorded.status().code() == absl::StatusCode::kAlreadyExists &&
          !request->job_key().empty()) {
        return absl::AbortedError(absl::StrCat("job_key: another call submitted \"",
                                               request->job_key(), "\" just now; retry"));
      }
      return absl::UnavailableError(absl::StrCat(
          "plan store: the job could not be recorded, so it was not accepted: ",
          recorded.status().message()));
    }
    auto shared = std::make_shared<const PreparedRequest>(*std::move(prepared));
    // The job holds the client's slot until the job queue drops its work, when it ends.
    auto slot = std::make_shared<ClientLimiter::Slot>(*std::move(client_slot));
    SubmitOptions options;
    options.id = id;
    options.job_key = request->job_key();
    absl::StatusOr<JobSnapshot> job = jobs_->Submit(
        DurableJobWork(engine_, ledger_, shared, *std::move(recorded),
                       limits_.max_planning_time_ms, slot),
        options);
    if (!job.ok()) {
      if (ledger_->enabled()) (void)ledger_->Delete(id);  // refused: it never was a job
      return job.status();
    }
    response->set_job_id(job->id);
    response->set_state(v1::QUEUED);
    return absl::OkStatus();
  });
}

absl::StatusOr<JobSnapshot> PlannerServiceImpl::FindJob(const std::string& job_id) const {
  absl::StatusOr<JobSnapshot> job = jobs_->Get(job_id);
  if (job.ok() || job.status().code() != absl::StatusCode::kNotFound) return job;
  absl::StatusOr<std::optional<PlanRecord>> record = ledger_->FindJob(job_id);
  if (!record.ok() || !record->has_value()) return job;
  return RecordToSnapshot(**record);
}

grpc::Status PlannerServiceImpl::GetPlan(grpc::ServerContext* context,
                                         const v1::JobRequest* request, v1::JobStatus* response) {
  return Handle(*context, "GetPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = FindJob(request->job_id());
    if (!job.ok()) return job.status();
    JobSnapshotToProto(*job, response);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::WatchPlan(grpc::ServerContext* context,
                                           const v1::JobRequest* request,
                                           grpc::ServerWriter<v1::JobStatus>* writer) {
  return Handle(*context, "WatchPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = jobs_->Get(request->job_id());
    if (!job.ok() && job.status().code() == absl::StatusCode::kNotFound) {
      return WatchStoredJob(*context, request->job_id(), writer);
    }
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

absl::Status PlannerServiceImpl::WatchStoredJob(const grpc::ServerContext& context,
                                                const std::string& job_id,
                                                grpc::ServerWriter<v1::JobStatus>* writer) const {
  absl::StatusOr<JobSnapshot> job = FindJob(job_id);
  std::string last_sent;
  while (true) {
    if (!job.ok()) return job.status();
    v1::JobStatus status;
    JobSnapshotToProto(*job, &status);
    if (std::string sent = status.SerializeAsString(); sent != last_sent) {
      if (!writer->Write(status)) return absl::CancelledError("the client went away");
      last_sent = std::move(sent);
    }
    if (IsTerminal(job->state)) return absl::OkStatus();
    const SteadyClock::time_point next = SteadyClock::now() + kStoreWatchPollInterval;
    while (SteadyClock::now() < next) {
      if (context.IsCancelled()) return absl::CancelledError("the client went away");
      std::this_thread::sleep_for(kWatchPollInterval);
    }
    job = FindJob(job_id);
  }
}

grpc::Status PlannerServiceImpl::CancelPlan(grpc::ServerContext* context,
                                            const v1::JobRequest* request,
                                            v1::JobStatus* response) {
  return Handle(*context, "CancelPlan", [&]() -> absl::Status {
    if (absl::Status valid = RequireJobId(*request); !valid.ok()) return valid;
    absl::StatusOr<JobSnapshot> job = jobs_->Cancel(request->job_id());
    if (!job.ok() && job.status().code() == absl::StatusCode::kNotFound) {
      absl::StatusOr<JobSnapshot> stored = FindJob(request->job_id());
      if (!stored.ok()) return stored.status();
      if (!IsTerminal(stored->state)) {
        return absl::FailedPreconditionError(
            absl::StrCat("job_id: job ", stored->id, " is ", JobStateName(stored->state),
                         " on another replica (", stored->progress, "); cancel it there"));
      }
      JobSnapshotToProto(*stored, response);
      return absl::OkStatus();
    }
    if (!job.ok()) return job.status();
    if (job->state == JobState::kCancelled && job->started_unix_ms == 0) {
      ledger_->RecordFinished(job->id, job->error);  // never ran, so its work never records it
    }
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
  return Handle(*context, "EvaluatePlan", [&]() -> absl::Status {
    absl::StatusOr<Task> task = wire::TaskFromProto(request->task(), engine_->options().limits);
    if (!task.ok()) return task.status();
    absl::StatusOr<::shardplan::Plan> plan = wire::PlanShardsFromProto(request->plan());
    if (!plan.ok()) return plan.status();
    if (!request->ground_truth().empty() && !request->model().empty()) {
      return absl::InvalidArgumentError(
          "model, ground_truth: set at most one (a cost model's prediction, or ground truth)");
    }
    absl::StatusOr<::shardplan::Plan> evaluated =
        request->ground_truth().empty()
            ? engine_->Evaluate(*task, *std::move(plan), request->model())
            : engine_->EvaluateOnGroundTruth(*task, *std::move(plan), request->ground_truth());
    if (!evaluated.ok()) return evaluated.status();
    *response->mutable_plan() = wire::PlanToProto(*evaluated);
    return absl::OkStatus();
  });
}

grpc::Status PlannerServiceImpl::ListAlgorithms(grpc::ServerContext* context,
                                                const v1::ListAlgorithmsRequest* request,
                                                v1::ListAlgorithmsResponse* response) {
  return Handle(*context, "ListAlgorithms", [&]() -> absl::Status {
    for (const Algorithm* planner : algorithms_->List()) {
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
  return Handle(*context, "ListModels", [&]() -> absl::Status {
    for (const ModelRegistry::Entry& entry : models_->List()) {
      ModelEntryToProto(entry, response->add_models());
    }
    return absl::OkStatus();
  });
}

}  // namespace shardplan
