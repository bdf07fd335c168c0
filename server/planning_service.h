#ifndef SHARDPLAN_SERVER_PLANNING_SERVICE_H_
#define SHARDPLAN_SERVER_PLANNING_SERVICE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/concurrency_limiter.h"
#include "server/job_manager.h"
#include "server/measurement_ledger.h"
#include "server/plan_ledger.h"
#include "server/planning_engine.h"
#include "server/planning_request.h"
#include "server/planning_result.h"
#include "server/security/client_limiter.h"
#include "server/security/client_rate_limiter.h"
#include "server/single_flight.h"
#include "server/stream_limits.h"
#include "server/work_admission.h"

namespace shardplan {

class ServerMetrics;

// A call as the service sees it, whatever transport brought it.
struct CallContext {
  // The caller's deadline on the steady clock; none when the caller set none.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Whether the caller went away (or its deadline passed); asked at most once a millisecond
  // while planning. Empty: never.
  std::function<bool()> cancelled;
  // Who the caller is (ClientIdentity), for max_requests_per_client and job ownership: the
  // jobs and plan records the call makes carry it as submitted_by.
  std::string client;
  // The caller's token has role admin: it sees and cancels every client's jobs.
  bool admin = false;
};

// What a Plan or Replan call answers.
struct PlanAnswer {
  PlanningResult result;
  bool from_store = false;  // the plan store held the plan (a job key's, or an earlier plan)
  std::string job_id;       // the record of the plan in the store; "" without one
};

// What a ReportMeasurement call answers.
struct MeasurementReport {
  PlanningResult evaluated;           // the plan's figures under the model checked
  double predicted_ms = 0.0;          // evaluated.plan.cost_ms: the slowest device, as predicted
  double measured_ms = 0.0;           // the slowest device, as measured
  double relative_error = 0.0;        // (predicted_ms - measured_ms) / measured_ms
  MeasurementLedger::Summary window;  // the model version's recent reports, this one included
};

struct PlanningServiceOptions {
  int64_t max_planning_time_ms = 0;  // cap on every Plan call's and job's planning; 0: none
  // Bounds WatchPlan streams (max_streams, max_streams_per_client); null: unbounded. Must
  // outlive the service.
  StreamLimits* streams = nullptr;
  // Bounds the heavy work of calls in progress, in table-devices (max_concurrent_work): see
  // AdmitWork. Null: unbounded. Must outlive the service.
  ConcurrencyLimiter* work = nullptr;
  // Bounds each client's ReportMeasurement calls (max_measurements_per_client_per_minute).
  // Null: unbounded. Must outlive the service.
  ClientRateLimiter* measurement_rate = nullptr;
};

// The planning service without its transport: the use cases of shardplan.v1.PlannerService
// in domain terms. Plan and Replan (cache, plan store, single flight, planning slots, job keys),
// jobs (submit, look up, watch, cancel, with the plan store behind the job manager) and
// evaluation. Errors are absl::Status codes with messages naming the request field; the gRPC
// layer (server/grpc/planner_service.h) only converts messages and statuses. Thread-safe.
class PlanningService {
 public:
  // Every pointer must outlive the service; `metrics` may not be null. `plan_slots` caps the
  // Plan calls planning at once (max_concurrent_plans): a call that needs to plan and finds none
  // free is refused RESOURCE_EXHAUSTED; cache hits take none, jobs are bounded by their workers.
  // `clients` caps each client's planning calls and jobs (max_requests_per_client).
  PlanningService(const PlanningEngine* engine, JobManager* jobs, const PlanLedger* ledger,
                  ConcurrencyLimiter* plan_slots, ClientLimiter* clients, ServerMetrics* metrics,
                  PlanningServiceOptions options = {});

  // From now on Plan, Replan and Submit answer UNAVAILABLE; job queries and evaluation go on.
  void StartDraining() { draining_.store(true); }

  enum class CallKind { kPlan, kReplan, kSubmit };
  // What a Plan, Replan or Submit call must pass before its request is even converted: the
  // server accepts new work, and a job key is well formed on a server that keeps plans (a
  // Replan's is required). The calls check it themselves; a transport asks first so that a
  // draining server refuses a call without converting its task.
  absl::Status Admit(CallKind kind, const std::string& job_key) const;

  // Admits the heavy work of one call on a task of `tables` tables and `devices` devices
  // (converting, validating, planning, evaluating or measuring it) within max_concurrent_work:
  // the transport asks before it converts the task and holds the ticket until it answers.
  // RESOURCE_EXHAUSTED with a Retry-After when the budget is taken.
  absl::StatusOr<WorkAdmission::Ticket> AdmitWork(int64_t tables, int64_t devices) const {
    return work_.Admit(tables, devices);
  }

  // Every call below stops with DEADLINE_EXCEEDED or CANCELLED between its stages (conversion,
  // validation, planning, evaluation, ground truth, measurement) once its caller's deadline
  // passed or the caller went away: no work is done for a caller that gave up.
  //
  // A plan for `request`: under its job key, the key's stored plan when it holds one for the
  // same request (FAILED_PRECONDITION when it names another request); else from the cache, the
  // plan store, an identical call in flight, or planned now. A plan computed here is recorded
  // in the store (the key's plan, or history).
  absl::StatusOr<PlanAnswer> Plan(PlanningRequest request, const CallContext& call);
  // A new plan under request.job_key (INVALID_ARGUMENT without one), replacing the key's plan.
  absl::StatusOr<PlanAnswer> Replan(PlanningRequest request, const CallContext& call);
  // Queues `request` as a job, recorded in the store before it is queued; with a job key whose
  // job exists, that job (submitting is idempotent).
  absl::StatusOr<JobSnapshot> Submit(PlanningRequest request, const CallContext& call);

  // Job queries by id answer only for jobs the caller may see (MaySeeJob: its own, every job
  // for an admin, and jobs no authenticated identity submitted); another identity's job is
  // NOT_FOUND in the words of an unknown id, so that the answer does not tell the id exists.
  //
  // The job, from the job manager, else from the plan store. NOT_FOUND when neither knows it.
  absl::StatusOr<JobSnapshot> GetJob(const std::string& job_id, const CallContext& call) const;
  // Calls `send` with the job's state now and with every change until it ends; stops early
  // (CANCELLED) when `send` returns false or the call is cancelled. A job only the store knows
  // (another replica's) is polled.
  absl::Status WatchJob(const std::string& job_id, const CallContext& call,
                        const std::function<bool(const JobSnapshot&)>& send) const;
  // Cancels the job and waits briefly for it to stop, so the answer usually shows CANCELLED.
  // FAILED_PRECONDITION for another replica's unfinished job.
  absl::StatusOr<JobSnapshot> CancelJob(const std::string& job_id, const CallContext& call);

  // `plan`'s figures for `task`: under a cost model (`model`, "" for the server's choice), or
  // measured on ground truth (`ground_truth`, "sim:<profile>"); at most one of the two.
  absl::StatusOr<PlanningResult> Evaluate(const Task& task, ::shardplan::Plan plan,
                                          const std::string& model, const std::string& ground_truth,
                                          const CallContext& call = CallContext{}) const;

  // A training job measured `device_ms` (per iteration, one per device) running `plan`: the
  // plan is evaluated under `model` (its exact version; INVALID_ARGUMENT when empty), the
  // relative error of the predicted step against the slowest measured device is recorded for
  // that version and the caller (the ledger, whose robust aggregate is
  // shardplan_model_prediction_error, and a log line naming the reporter) and returned.
  // INVALID_ARGUMENT naming device_ms for a count other than the task's devices or a time that
  // is not a plausible time per iteration (1 us to 1 hour); RESOURCE_EXHAUSTED past
  // max_measurements_per_client_per_minute or max_requests_per_client.
  absl::StatusOr<MeasurementReport> ReportMeasurement(const Task& task, ::shardplan::Plan plan,
                                                      const std::string& model,
                                                      std::span<const double> device_ms,
                                                      const CallContext& call = CallContext{});

  const PlanningEngine& engine() const { return *engine_; }

 private:
  // What the plan store holds under a request's job key.
  struct KeyedLookup {
    std::optional<PlanRecord> record;  // the key's record, if any
    bool replace = false;  // the record is a failed or cancelled attempt: a new one takes the key
  };

  // FAILED_PRECONDITION when the key names a different request, or when the server keeps no
  // store; UNAVAILABLE when the store cannot be read.
  absl::StatusOr<KeyedLookup> LookUpJobKey(const PlanningRequest& request) const;
  // The job, from the job manager, else from the plan store, whoever submitted it.
  absl::StatusOr<JobSnapshot> LookUpJob(const std::string& job_id) const;
  // `job` unless `call` may not see it (MaySeeJob): then the NOT_FOUND of an unknown id.
  absl::StatusOr<JobSnapshot> VisibleTo(absl::StatusOr<JobSnapshot> job, const std::string& job_id,
                                        const CallContext& call) const;
  // `record`'s stored plan as an answer.
  absl::StatusOr<PlanAnswer> AnswerFromRecord(const PlanRecord& record) const;
  // Plans (cache, store, then PlanOnce) and records the plan; `replace_key` moves the job key.
  absl::StatusOr<PlanAnswer> PlanAndRecord(PlanningRequest request, const CallContext& call,
                                           bool replace_key);
  // PlanNow, once for all identical requests in flight: a call that finds its request being
  // planned waits for that plan under its own deadline, holding no planning slot.
  absl::StatusOr<PlanningResult> PlanOnce(const PreparedRequest& request, const CallContext& call);
  // Plans within a planning slot and a max_requests_per_client slot of the caller.
  absl::StatusOr<PlanningResult> PlanNow(const PreparedRequest& request, const CallContext& call);
  // WatchJob of a job only the plan store knows: polls its record until it ends.
  absl::Status WatchStoredJob(const std::string& job_id, const CallContext& call,
                              const std::function<bool(const JobSnapshot&)>& send) const;

  const PlanningEngine* const engine_;
  JobManager* const jobs_;
  const PlanLedger* const ledger_;
  ConcurrencyLimiter* const plan_slots_;
  ClientLimiter* const clients_;
  ServerMetrics* const metrics_;
  const PlanningServiceOptions options_;
  SingleFlight<PlanningResult> flights_;  // Plan calls planning, by request hash
  MeasurementLedger measurements_;        // reported prediction errors, per model version
  const WorkAdmission work_;              // max_concurrent_work
  std::atomic<bool> draining_{false};
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_SERVICE_H_
