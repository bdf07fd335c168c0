#include "server/planning_service.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_prefix.h"
#include "server/costing_warnings.h"
#include "server/durable_jobs.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/planning_time_cap.h"
#include "server/retry_after.h"
#include "server/security/access_policy.h"

namespace shardplan {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often a planning Plan call asks whether its caller went away. The gRPC predicate takes a
// lock, and planners check their stop signal before every greedy run (thousands of times a
// plan): asking on every check cost more than half the server's planning CPU.
constexpr auto kCancellationPollInterval = std::chrono::milliseconds(1);
// When a Plan call refused for want of a planning slot may try again: a plan takes tens of ms.
constexpr absl::Duration kPlanSlotRetryAfter = absl::Milliseconds(100);
// How long CancelJob waits for a running job to stop, so the answer usually shows CANCELLED.
constexpr auto kCancelGrace = std::chrono::seconds(2);
// What a device may plausibly take per training iteration: a kernel launch alone takes
// microseconds, and an iteration of an hour is no training job's.
constexpr double kMinPlausibleStepMs = 1e-3;
constexpr double kMaxPlausibleStepMs = 3.6e6;
// How often WatchJob wakes to see whether its caller went away.
constexpr auto kWatchPollInterval = std::chrono::milliseconds(100);
// How often WatchJob re-reads a job that only the plan store knows (another replica's).
constexpr auto kStoreWatchPollInterval = std::chrono::milliseconds(500);

bool Cancelled(const CallContext& call) { return call.cancelled && call.cancelled(); }

bool DeadlinePassed(const CallContext& call) {
  return call.deadline && SteadyClock::now() >= *call.deadline;
}

absl::Status DeadlineExceeded() {
  return absl::DeadlineExceededError("the call's deadline passed before its work finished");
}

// Transports also mark a call cancelled when its deadline passes, so a planner stopped that way
// reports CANCELLED; the caller is owed DEADLINE_EXCEEDED.
absl::Status StopReason(const absl::Status& status, const StopSignal& stop) {
  if (status.code() == absl::StatusCode::kCancelled && stop.deadline_passed()) {
    return DeadlineExceeded();
  }
  return status;
}

// The stop signal of the work done for `call`: its deadline and cancellation.
StopSignal StopOf(const CallContext& call) {
  return StopSignal(call.deadline, call.cancelled, kCancellationPollInterval);
}

// Why a Plan call that waits stops waiting: its caller went away or its deadline passed.
absl::Status CallStopped(const CallContext& call) {
  if (DeadlinePassed(call)) return DeadlineExceeded();
  if (Cancelled(call)) return absl::CancelledError("the client went away");
  return absl::OkStatus();
}

// Whether the outcome of one Plan call answers an identical call waiting for it: a complete
// plan, or an error of the request itself. A plan a deadline cut short, or a refusal or stop
// of the leader's own call, answers only that call.
bool AnswersIdenticalRequests(const absl::StatusOr<PlanningResult>& outcome) {
  if (outcome.ok()) return !outcome->plan.stats.anytime_result;
  return outcome.status().code() == absl::StatusCode::kFailedPrecondition ||
         outcome.status().code() == absl::StatusCode::kInvalidArgument;
}

absl::Status DifferentKeyedRequest(const PlanRecord& record) {
  return absl::FailedPreconditionError(
      absl::StrCat("job_key: \"", record.job_key,
                   "\" already names the plan of a different request (job ", record.job_id,
                   "); send the same request to get that plan, call Replan to replace it, or "
                   "use another job_key"));
}

absl::Status NoStoreForKeys() {
  return absl::FailedPreconditionError(
      "job_key: this server keeps no plan store (its `store` setting is empty), so it cannot "
      "keep named plans");
}

// The model a Replan that names none keeps: the one the key's plan was asked under, as it was
// spelled ("name" follows the name's newest version, "name@version" stays, "" stays the
// server's choice), so that the job's resume call, which names that model, still finds its
// plan. A key without a record, or whose record is damaged or unreadable as a request (Replan
// is how such a key gets a new plan), keeps nothing.
absl::StatusOr<std::string> ModelOfKeyedPlan(const PlanLedger& ledger, const std::string& job_key) {
  absl::StatusOr<std::optional<PlanRecord>> found = ledger.FindKeyed(job_key);
  if (!found.ok() && found.status().code() != absl::StatusCode::kDataLoss) {
    return StoreReadError("job_key", absl::StrCat("the plan named \"", job_key, "\""),
                          found.status());
  }
  if (!found.ok() || !found->has_value()) return std::string();
  absl::StatusOr<PlanningRequest> stored = ledger.StoredRequest(**found);
  return stored.ok() ? stored->model : std::string();
}

// What a watcher sees of a job: a stored job re-read unchanged is not sent again.
bool SameVisibleState(const JobSnapshot& a, const JobSnapshot& b) {
  return a.state == b.state && a.progress == b.progress &&
         a.progress_fraction == b.progress_fraction && a.started_unix_ms == b.started_unix_ms &&
         a.finished_unix_ms == b.finished_unix_ms && a.error == b.error &&
         (a.result == nullptr) == (b.result == nullptr);
}

}  // namespace

PlanningService::PlanningService(const PlanningEngine* engine, JobManager* jobs,
                                 const PlanLedger* ledger, ConcurrencyLimiter* plan_slots,
                                 ClientLimiter* clients, ServerMetrics* metrics,
                                 PlanningServiceOptions options)
    : engine_(engine),
      jobs_(jobs),
      ledger_(ledger),
      plan_slots_(plan_slots),
      clients_(clients),
      metrics_(metrics),
      options_(options),
      work_(options.work, metrics) {}

absl::Status PlanningService::Admit(CallKind kind, const std::string& job_key) const {
  if (draining_.load()) {
    return absl::UnavailableError(
        "the server is shutting down and accepts no new planning work; retry on another "
        "instance");
  }
  if (kind == CallKind::kReplan && job_key.empty()) {
    return absl::InvalidArgumentError("job_key: Replan replaces a named plan; set job_key");
  }
  if (job_key.empty()) return absl::OkStatus();
  if (absl::Status valid = ValidateJobKey(job_key); !valid.ok()) return valid;
  if (!ledger_->enabled()) {
    return kind == CallKind::kReplan
               ? absl::FailedPreconditionError(
                     "job_key: this server keeps no plan store (its `store` setting is empty)")
               : NoStoreForKeys();
  }
  return absl::OkStatus();
}

absl::StatusOr<PlanningResult> PlanningService::PlanNow(const PreparedRequest& request,
                                                        const CallContext& call) {
  // Planning is what max_requests_per_client bounds: cache hits, stored plans and calls that
  // wait for an identical plan in flight do none.
  absl::StatusOr<ClientLimiter::Slot> client_slot = clients_->Acquire(call.client);
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
  StopSignal stop = StopOf(call);
  const std::optional<SteadyClock::time_point> cap =
      CapPlanningTime(stop, options_.max_planning_time_ms);
  absl::StatusOr<PlanningResult> result = engine_->Compute(request, stop, nullptr);
  if (!result.ok()) {
    return CapReason(StopReason(result.status(), stop), cap, options_.max_planning_time_ms);
  }
  return result;
}

absl::StatusOr<PlanningResult> PlanningService::PlanOnce(const PreparedRequest& request,
                                                         const CallContext& call) {
  // A request that bypasses the cache asks for a computation of its own.
  if (request.asked.bypass_cache || request.cache_key.empty()) return PlanNow(request, call);
  SingleFlight<PlanningResult>::Result shared = flights_.Do(
      request.cache_key, [&] { return PlanNow(request, call); }, AnswersIdenticalRequests,
      [&] { return CallStopped(call); }, [this] { metrics_->RecordSingleFlightJoin(); });
  if (shared.joined && shared.outcome.ok()) shared.outcome->joined = true;
  return std::move(shared.outcome);
}

absl::StatusOr<PlanningService::KeyedLookup> PlanningService::LookUpJobKey(
    const PlanningRequest& request) const {
  KeyedLookup lookup;
  if (request.job_key.empty()) return lookup;  // Admit checked the key and the store
  absl::StatusOr<std::optional<PlanRecord>> found = ledger_->FindKeyed(request.job_key);
  if (!found.ok()) {
    return StoreReadError("job_key", absl::StrCat("the plan named \"", request.job_key, "\""),
                          found.status());
  }
  if (!found->has_value()) return lookup;
  lookup.record = **std::move(found);
  const std::string& status = lookup.record->status;
  if (status == JobStateName(JobState::kFailed) || status == JobStateName(JobState::kCancelled)) {
    lookup.replace = true;  // an attempt that left no plan: the key is free again
    return lookup;
  }
  // The stored request is read only here, when the key holds a plan to compare with.
  absl::StatusOr<PlanningRequest> stored = ledger_->StoredRequest(*lookup.record);
  // A record that does not parse is the store's fault; one today's limits refuse is another
  // request than this one, which passed them.
  if (!stored.ok() && stored.status().code() == absl::StatusCode::kDataLoss) {
    return stored.status();
  }
  if (!stored.ok() || KeyedRequestFingerprint(*stored) != KeyedRequestFingerprint(request)) {
    return DifferentKeyedRequest(*lookup.record);
  }
  return lookup;
}

absl::StatusOr<PlanAnswer> PlanningService::AnswerFromRecord(const PlanRecord& record) const {
  absl::StatusOr<JobSnapshot> snapshot = ledger_->Snapshot(record);
  if (!snapshot.ok()) return snapshot.status();
  PlanAnswer answer;
  answer.result = *snapshot->result;
  answer.from_store = true;
  answer.job_id = record.job_id;
  return answer;
}

absl::StatusOr<PlanAnswer> PlanningService::PlanAndRecord(PlanningRequest request,
                                                          const CallContext& call,
                                                          bool replace_key) {
  if (absl::Status stopped = CallStopped(call); !stopped.ok()) return stopped;
  absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(std::move(request));
  if (!prepared.ok()) return prepared.status();
  if (absl::Status stopped = CallStopped(call); !stopped.ok()) return stopped;
  const std::string& job_key = prepared->asked.job_key;
  // A cache hit does no planning, so it is served whatever max_concurrent_plans allows; so is
  // a plan for exactly this request that the store kept (e.g. from before a restart).
  std::optional<PlanningResult> cached = engine_->CachedResult(*prepared);
  bool stored = false;
  if (!cached && !prepared->asked.bypass_cache) {
    absl::StatusOr<std::optional<PlanningResult>> kept = ledger_->FindPlan(*prepared);
    if (kept.ok() && kept->has_value()) {
      cached = **std::move(kept);
      stored = true;
    }  // an unreadable store only costs a plan
  }
  absl::StatusOr<PlanningResult> result = cached ? *std::move(cached) : PlanOnce(*prepared, call);
  if (!result.ok()) return result.status();
  // The plan may be another request's (stored, or computed by an identical call in flight):
  // the selection and the warnings are this request's. A stored plan does not carry what its
  // computation found about imputed histograms: finding it again costs the imputation, once:
  // the plan goes to the cache with what was found, so the next identical request is a hit.
  if (stored) {
    const StopSignal stop = StopOf(call);
    absl::StatusOr<std::vector<TableWarning>> found =
        engine_->ImputedTableWarnings(*prepared, &stop);
    if (!found.ok()) return StopReason(found.status(), stop);
    result->imputed_table_warnings = *std::move(found);
    engine_->CachePlan(*prepared, result->plan, result->imputed_table_warnings);
  }
  result->selection = prepared->selection;
  result->warnings = PlanningEngine::WarningsFor(*prepared, result->imputed_table_warnings);
  metrics_->RecordPlanWarnings(
      AtRequestPositions(prepared->asked.task, result->imputed_table_warnings));
  engine_->AnnotatePlan(prepared->asked.task, *result);

  PlanAnswer answer;
  const bool keyed = !job_key.empty();
  // Keyless plans are recorded when computed here and complete (a joined call's plan was
  // recorded by the call that computed it); an anytime plan stands only for the call that
  // asked for it, as in the cache.
  const bool computed_here = !result->cache_hit && !stored && !result->joined;
  if (keyed || (computed_here && !result->plan.stats.anytime_result)) {
    absl::StatusOr<std::string> job_id =
        ledger_->RecordPlan(*prepared, *result, replace_key, call.client);
    if (keyed && job_id.status().code() == absl::StatusCode::kAlreadyExists) {
      // Another call took the key first: its plan is the key's plan.
      absl::StatusOr<KeyedLookup> winner = LookUpJobKey(prepared->asked);
      if (!winner.ok()) return winner.status();
      if (winner->record && winner->record->status == JobStateName(JobState::kSucceeded)) {
        metrics_->RecordJobKeyHit();
        return AnswerFromRecord(*winner->record);
      }
    }
    if (keyed && !job_id.ok()) {
      return absl::UnavailableError(
          absl::StrCat("job_key: the plan could not be stored under \"", job_key,
                       "\", so the key would not bring it back; nothing was stored: ",
                       job_id.status().message()));
    }
    if (job_id.ok()) answer.job_id = *job_id;
  }
  result->cache_hit = result->cache_hit || stored;
  answer.result = *std::move(result);
  answer.from_store = stored;
  return answer;
}

absl::StatusOr<PlanAnswer> PlanningService::Plan(PlanningRequest request, const CallContext& call) {
  if (absl::Status admitted = Admit(CallKind::kPlan, request.job_key); !admitted.ok()) {
    return admitted;
  }
  absl::StatusOr<KeyedLookup> keyed = LookUpJobKey(request);
  if (!keyed.ok()) return keyed.status();
  if (keyed->record && !keyed->replace) {
    if (keyed->record->status != JobStateName(JobState::kSucceeded)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job_key: \"", request.job_key, "\" is job ", keyed->record->job_id, ", still ",
          keyed->record->status, "; wait for it with WatchPlan or GetPlan"));
    }
    metrics_->RecordJobKeyHit();
    return AnswerFromRecord(*keyed->record);
  }
  return PlanAndRecord(std::move(request), call, keyed->replace);
}

absl::StatusOr<PlanAnswer> PlanningService::Replan(PlanningRequest request,
                                                   const CallContext& call) {
  if (absl::Status admitted = Admit(CallKind::kReplan, request.job_key); !admitted.ok()) {
    return admitted;
  }
  if (request.model.empty()) {
    absl::StatusOr<std::string> kept = ModelOfKeyedPlan(*ledger_, request.job_key);
    if (!kept.ok()) return kept.status();
    request.model = *std::move(kept);
  }
  return PlanAndRecord(std::move(request), call, /*replace_key=*/true);
}

absl::StatusOr<JobSnapshot> PlanningService::Submit(PlanningRequest request,
                                                    const CallContext& call) {
  if (absl::Status admitted = Admit(CallKind::kSubmit, request.job_key); !admitted.ok()) {
    return admitted;
  }
  absl::StatusOr<KeyedLookup> keyed = LookUpJobKey(request);
  if (!keyed.ok()) return keyed.status();
  if (keyed->record && !keyed->replace) {  // the key's job exists: submitting is idempotent
    return ledger_->Snapshot(*keyed->record);
  }
  // Bad requests fail here, synchronously, rather than as FAILED jobs.
  if (absl::Status stopped = CallStopped(call); !stopped.ok()) return stopped;
  absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(std::move(request));
  if (!prepared.ok()) return prepared.status();
  if (absl::Status stopped = CallStopped(call); !stopped.ok()) return stopped;
  absl::StatusOr<ClientLimiter::Slot> client_slot = clients_->Acquire(call.client);
  if (!client_slot.ok()) return client_slot.status();
  const std::string job_key = prepared->asked.job_key;
  // Recorded before it is queued, so an accepted job is never lost: a restart resumes it.
  const std::string id = NewJobId();
  absl::StatusOr<PlanRecord> recorded =
      ledger_->RecordQueued(id, *prepared, keyed->replace, call.client);
  if (!recorded.ok()) {
    if (recorded.status().code() == absl::StatusCode::kAlreadyExists && !job_key.empty()) {
      return absl::AbortedError(
          absl::StrCat("job_key: another call submitted \"", job_key, "\" just now; retry"));
    }
    return absl::UnavailableError(
        absl::StrCat("plan store: the job could not be recorded, so it was not accepted: ",
                     recorded.status().message()));
  }
  auto shared = std::make_shared<const PreparedRequest>(*std::move(prepared));
  // The job holds the client's slot until the job queue drops its work, when it ends.
  auto slot = std::make_shared<ClientLimiter::Slot>(*std::move(client_slot));
  SubmitOptions options;
  options.id = id;
  options.job_key = job_key;
  options.submitted_by = call.client;
  absl::StatusOr<JobSnapshot> job =
      jobs_->Submit(DurableJobWork(engine_, ledger_, shared, *std::move(recorded),
                                   options_.max_planning_time_ms, slot),
                    options);
  if (!job.ok() && ledger_->enabled()) (void)ledger_->Delete(id);  // refused: never a job
  return job;
}

absl::StatusOr<JobSnapshot> PlanningService::VisibleTo(absl::StatusOr<JobSnapshot> job,
                                                       const std::string& job_id,
                                                       const CallContext& call) const {
  if (job.ok() && !MaySeeJob(job->submitted_by, call.client, call.admin)) {
    return jobs_->NotFound(job_id);
  }
  return job;
}

absl::StatusOr<JobSnapshot> PlanningService::GetJob(const std::string& job_id,
                                                    const CallContext& call) const {
  return VisibleTo(LookUpJob(job_id), job_id, call);
}

absl::StatusOr<JobSnapshot> PlanningService::LookUpJob(const std::string& job_id) const {
  absl::StatusOr<JobSnapshot> job = jobs_->Get(job_id);
  if (job.ok() || job.status().code() != absl::StatusCode::kNotFound) return job;
  absl::StatusOr<std::optional<PlanRecord>> record = ledger_->FindJob(job_id);
  // A store that cannot answer, or a damaged record, is never "no such job".
  if (!record.ok()) {
    return StoreReadError("job_id", absl::StrCat("job ", PrintableExcerpt(job_id)),
                          record.status());
  }
  if (!record->has_value()) return job;
  return ledger_->Snapshot(**record);
}

absl::Status PlanningService::WatchJob(const std::string& job_id, const CallContext& call,
                                       const std::function<bool(const JobSnapshot&)>& send) const {
  std::optional<StreamLimits::Ticket> ticket;  // held while the stream is open
  if (options_.streams != nullptr) {
    absl::StatusOr<StreamLimits::Ticket> opened = options_.streams->Open(call.client);
    if (!opened.ok()) return opened.status();
    ticket.emplace(*std::move(opened));
    metrics_->SetWatchStreams(options_.streams->open());
  }
  absl::Cleanup closed = [&] {
    ticket.reset();
    if (options_.streams != nullptr) metrics_->SetWatchStreams(options_.streams->open());
  };
  absl::StatusOr<JobSnapshot> job = VisibleTo(jobs_->Get(job_id), job_id, call);
  if (!job.ok() && job.status().code() == absl::StatusCode::kNotFound) {
    return WatchStoredJob(job_id, call, send);
  }
  if (!job.ok()) return job.status();
  while (true) {
    if (!send(*job)) return absl::CancelledError("the client went away");
    if (IsTerminal(job->state)) return absl::OkStatus();
    const uint64_t seen = job->version;
    while (job->version == seen) {
      if (Cancelled(call)) return absl::CancelledError("the client went away");
      job = jobs_->WaitForChange(job_id, seen, SteadyClock::now() + kWatchPollInterval);
      if (!job.ok()) return job.status();
    }
  }
}

absl::Status PlanningService::WatchStoredJob(
    const std::string& job_id, const CallContext& call,
    const std::function<bool(const JobSnapshot&)>& send) const {
  absl::StatusOr<JobSnapshot> job = GetJob(job_id, call);
  std::optional<JobSnapshot> last_sent;
  while (true) {
    if (!job.ok()) return job.status();
    if (!last_sent || !SameVisibleState(*job, *last_sent)) {
      if (!send(*job)) return absl::CancelledError("the client went away");
      last_sent = *job;
    }
    if (IsTerminal(job->state)) return absl::OkStatus();
    const SteadyClock::time_point next = SteadyClock::now() + kStoreWatchPollInterval;
    while (SteadyClock::now() < next) {
      if (Cancelled(call)) return absl::CancelledError("the client went away");
      std::this_thread::sleep_for(kWatchPollInterval);
    }
    job = GetJob(job_id, call);
  }
}

absl::StatusOr<JobSnapshot> PlanningService::CancelJob(const std::string& job_id,
                                                       const CallContext& call) {
  // Another identity's job is not cancelled: it is not found.
  if (absl::StatusOr<JobSnapshot> held = jobs_->Get(job_id);
      held.ok() && !MaySeeJob(held->submitted_by, call.client, call.admin)) {
    return jobs_->NotFound(job_id);
  }
  absl::StatusOr<JobSnapshot> job = jobs_->Cancel(job_id);
  if (!job.ok() && job.status().code() == absl::StatusCode::kNotFound) {
    absl::StatusOr<JobSnapshot> stored = GetJob(job_id, call);
    if (!stored.ok()) return stored.status();
    if (!IsTerminal(stored->state)) {
      return absl::FailedPreconditionError(
          absl::StrCat("job_id: job ", stored->id, " is ", JobStateName(stored->state),
                       " on another replica (", stored->progress, "); cancel it there"));
    }
    return stored;
  }
  if (!job.ok()) return job.status();
  if (job->state == JobState::kCancelled && job->started_unix_ms == 0) {
    ledger_->RecordFinished(job->id, job->error);  // never ran, so its work never records it
  }
  // A running job stops at its planner's next check; wait briefly so the answer shows the
  // final state in the common case.
  SteadyClock::time_point until = SteadyClock::now() + kCancelGrace;
  if (call.deadline) until = std::min(until, *call.deadline);
  while (!IsTerminal(job->state) && SteadyClock::now() < until && !Cancelled(call)) {
    absl::StatusOr<JobSnapshot> next = jobs_->WaitForChange(job_id, job->version, until);
    if (!next.ok()) break;  // evicted meanwhile: report what we saw
    job = std::move(next);
  }
  return job;
}

absl::StatusOr<PlanningResult> PlanningService::Evaluate(const Task& task, ::shardplan::Plan plan,
                                                         const std::string& model,
                                                         const std::string& ground_truth,
                                                         const CallContext& call) const {
  if (!ground_truth.empty() && !model.empty()) {
    return absl::InvalidArgumentError(
        "model, ground_truth: set at most one (a cost model's prediction, or ground truth)");
  }
  const StopSignal stop = StopOf(call);
  absl::StatusOr<PlanningResult> result =
      ground_truth.empty()
          ? engine_->Evaluate(task, std::move(plan), model, &stop)
          : engine_->EvaluateOnGroundTruth(task, std::move(plan), ground_truth, &stop);
  if (!result.ok()) return StopReason(result.status(), stop);
  return result;
}

absl::StatusOr<MeasurementReport> PlanningService::ReportMeasurement(
    const Task& task, ::shardplan::Plan plan, const std::string& model,
    std::span<const double> device_ms, const CallContext& call) {
  if (model.empty()) {
    return absl::InvalidArgumentError(
        "model: name the model version whose prediction the measurement checks (the plan's "
        "cost_model is empty too)");
  }
  const int32_t devices = task.topology.num_devices();
  if (static_cast<int64_t>(device_ms.size()) != devices) {
    return absl::InvalidArgumentError(absl::StrCat("device_ms: ", device_ms.size(),
                                                   " times for a task of ", devices, " devices"));
  }
  for (size_t d = 0; d < device_ms.size(); ++d) {
    if (!std::isfinite(device_ms[d]) || device_ms[d] <= 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("device_ms[", d, "]: must be a finite time > 0 ms, got ", device_ms[d]));
    }
    if (device_ms[d] < kMinPlausibleStepMs || device_ms[d] > kMaxPlausibleStepMs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device_ms[", d, "]: ", device_ms[d], " ms is not a plausible time per iteration (",
          kMinPlausibleStepMs, " to ", kMaxPlausibleStepMs, " ms)"));
    }
  }
  if (options_.measurement_rate != nullptr) {
    if (absl::Status within = options_.measurement_rate->Take(call.client); !within.ok()) {
      return within;
    }
  }
  absl::StatusOr<ClientLimiter::Slot> client_slot = clients_->Acquire(call.client);
  if (!client_slot.ok()) return client_slot.status();
  const StopSignal stop = StopOf(call);
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, std::move(plan), model, &stop);
  if (!evaluated.ok()) return StopReason(evaluated.status(), stop);
  // Recorded only for a caller still waiting: a report whose caller gave up is not applied.
  if (absl::Status stopped = CallStopped(call); !stopped.ok()) return stopped;
  MeasurementReport report;
  report.predicted_ms = evaluated->plan.cost_ms;
  report.measured_ms = *std::max_element(device_ms.begin(), device_ms.end());
  report.relative_error = (report.predicted_ms - report.measured_ms) / report.measured_ms;
  const std::string& version = evaluated->plan.cost_model;
  report.window = measurements_.Record(version, call.client, report.relative_error);
  metrics_->RecordMeasurement(version, report.window.mean_abs_relative_error);
  // Who moved a model's error gauge, and by how much, stays on record.
  Log(LogLevel::kInfo, "measurement reported",
      {{"model", version},
       {"reporter", call.client},
       {"predicted_ms", report.predicted_ms},
       {"measured_ms", report.measured_ms},
       {"relative_error", report.relative_error},
       {"model_error", report.window.mean_abs_relative_error},
       {"reporters", report.window.reporters}},
      absl::StrCat("measurement reported by ", call.client));
  report.evaluated = *std::move(evaluated);
  return report;
}

}  // namespace shardplan
