#ifndef SHARDPLAN_SERVER_PLAN_LEDGER_H_
#define SHARDPLAN_SERVER_PLAN_LEDGER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/job_manager.h"
#include "server/planning_engine.h"
#include "server/planning_request.h"
#include "server/store/plan_store.h"

namespace shardplan {

class ServerMetrics;

// INVALID_ARGUMENT "job_key: ..." unless `key` is "" or 1..256 of [A-Za-z0-9._:/-].
absl::Status ValidateJobKey(const std::string& key);

// What identifies a keyed request: SHA-256 over the canonical task and the algorithm,
// parameters, seed and model *as the client asked* (before defaults and "latest" are resolved),
// so a job resuming with the same request matches its stored plan whatever the server loaded
// since.
std::string KeyedRequestFingerprint(const PlanningRequest& request);

// The server's side of the plan store: turns plans, jobs and job keys into PlanRecords and
// back, and counts every store call in the metrics. Without a store (`store` null) every
// lookup finds nothing and every write succeeds without effect, so callers need no branches.
// Thread-safe.
class PlanLedger {
 public:
  // `store` and `metrics` may be null; both must outlive the ledger. `owner` is this replica's
  // id (ServerConfig::replica_id), `limits` the server's task limits (for stored requests).
  PlanLedger(PlanStore* store, std::string owner, TaskLimits limits, ServerMetrics* metrics);

  bool enabled() const { return store_ != nullptr; }
  const std::string& owner() const { return owner_; }

  // The record holding `job_key`, if any.
  absl::StatusOr<std::optional<PlanRecord>> FindKeyed(const std::string& job_key) const;
  // The record of `job_id`, if any.
  absl::StatusOr<std::optional<PlanRecord>> FindJob(const std::string& job_id) const;
  // A stored plan for exactly this resolved request (its request hash), if any.
  absl::StatusOr<std::optional<PlanningResult>> FindPlan(const PreparedRequest& request) const;

  // Stores a plan a Plan or Replan call computed (or served from the cache) as a SUCCEEDED
  // record and returns its job id. With a job key, ALREADY_EXISTS when another record took the
  // key meanwhile, unless `replace_key` (Replan), which moves the key to the new record. A
  // keyless plan's record is only its history, so it is written with PlanStore::InsertHistory:
  // the caller's answer does not wait for the disk.
  absl::StatusOr<std::string> RecordPlan(const PreparedRequest& prepared,
                                         const PlanningResult& result, bool replace_key) const;

  // A SubmitPlan job, before it is queued: a QUEUED record (ALREADY_EXISTS as for RecordPlan;
  // `replace_key` when the key's record is a failed or cancelled attempt). Returns the record as
  // stored, which the job's work then keeps up to date without reading it back.
  absl::StatusOr<PlanRecord> RecordQueued(const std::string& job_id,
                                          const PreparedRequest& prepared,
                                          bool replace_key) const;

  // The request `record` keeps, as it was asked (INTERNAL when it does not parse; the task
  // errors of PlanningRequestFromProto when today's limits refuse it).
  absl::StatusOr<PlanningRequest> StoredRequest(const PlanRecord& record) const;
  // The job `record` started / ended; `record` is updated and written. Failures are logged and
  // counted, not returned: the job itself goes on, and a restart finds the record unfinished
  // and runs it again (plans are deterministic, so it gets the same plan).
  void RecordRunning(PlanRecord& record) const;
  void RecordFinished(PlanRecord& record, const absl::StatusOr<PlanningResult>& outcome) const;
  // The same for a job known only by id (one cancelled before it ran): reads its record first.
  void RecordFinished(const std::string& job_id,
                      const absl::StatusOr<PlanningResult>& outcome) const;

  // From now on cancellations are not recorded: jobs the shutdown cancels stay QUEUED or
  // RUNNING in the store, so the next start resumes them.
  void BeginShutdown() { shutting_down_.store(true); }
  bool shutting_down() const { return shutting_down_.load(); }

  // This replica's QUEUED and RUNNING records.
  absl::StatusOr<std::vector<PlanRecord>> Unfinished() const;
  // Marks a record that cannot be resumed FAILED with `reason` (FAILED_PRECONDITION).
  void RecordUnresumable(PlanRecord record, const std::string& reason) const;

  absl::Status Delete(const std::string& job_id) const;
  // An operator's deletion of a finished record, named by exactly one of `job_id` and `job_key`
  // (INVALID_ARGUMENT otherwise): NOT_FOUND when the store holds none, FAILED_PRECONDITION
  // without a store or while the job is queued or running. Returns the deleted job's id.
  absl::StatusOr<std::string> DeleteFinished(const std::string& job_id,
                                             const std::string& job_key) const;

 private:
  // Counts one store call; returns `status` unchanged.
  absl::Status Count(const char* operation, const absl::Status& status) const;
  PlanRecord NewRecord(const std::string& job_id, const PreparedRequest& prepared) const;
  absl::Status Store(const PlanRecord& record, bool replace_key) const;
  // A keyless plan's record (PlanStore::InsertHistory).
  absl::Status StoreHistory(const PlanRecord& record) const;

  PlanStore* const store_;
  const std::string owner_;
  const TaskLimits limits_;
  ServerMetrics* const metrics_;
  std::atomic<bool> shutting_down_{false};
};

// A stored record as a job snapshot (for GetPlan and WatchPlan of jobs the JobManager no
// longer holds, e.g. after a restart). INTERNAL when the stored plan does not parse.
absl::StatusOr<JobSnapshot> RecordToSnapshot(const PlanRecord& record);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLAN_LEDGER_H_
