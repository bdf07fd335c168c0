#ifndef SHARDPLAN_SERVER_PLAN_LEDGER_H_
#define SHARDPLAN_SERVER_PLAN_LEDGER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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

struct PlanLedgerOptions {
  // store_max_plan_bytes: a keyless Plan call's record (RecordBytes: request and plan JSON)
  // larger than this is not stored; the plan is still answered. Keyed plans and SubmitPlan jobs
  // are stored whatever their size (a key and a job id promise the plan back). 0: no cap.
  int64_t max_plan_bytes = 0;
};

// The message of a store read that failed while looking up `what` (e.g. `job 0123...` or `the
// plan named "k"`) for the request field `field`. DATA_LOSS (a damaged record) keeps its code
// and says the record is not served and how to replace it; any other code keeps its code and
// says to retry.
absl::Status StoreReadError(const std::string& field, const std::string& what,
                            const absl::Status& status);

// The server's side of the plan store: turns plans, jobs and job keys into PlanRecords and
// back, and counts every store call in the metrics. Damaged records (DATA_LOSS from the store,
// or a record whose plan or request does not parse) are counted in
// shardplan_store_damaged_records_total and logged once per name they were looked up by (job
// id, job key, request hash); records from before checksums are counted as unverified reads.
// Without a store (`store` null) every lookup finds nothing and every write succeeds without
// effect, so callers need no branches. Thread-safe.
class PlanLedger {
 public:
  // `store` and `metrics` may be null; both must outlive the ledger. `owner` is this replica's
  // id (ServerConfig::replica_id), `limits` the server's task limits (for stored requests).
  PlanLedger(PlanStore* store, std::string owner, TaskLimits limits, ServerMetrics* metrics,
             PlanLedgerOptions options = {});

  bool enabled() const { return store_ != nullptr; }

  // The store's start-up check found damage (`reason`): from now on a job id or job key the store
  // does not find answers UNAVAILABLE (it may be there, unreadable: a damaged index hides
  // records) instead of "not found", so that a key is never given a second, different plan.
  void MarkStoreDamaged(const std::string& reason);
  const std::string& owner() const { return owner_; }

  // The record holding `job_key`, if any (UNAVAILABLE instead of none on a damaged store).
  absl::StatusOr<std::optional<PlanRecord>> FindKeyed(const std::string& job_key) const;
  // The record of `job_id`, if any (UNAVAILABLE instead of none on a damaged store).
  absl::StatusOr<std::optional<PlanRecord>> FindJob(const std::string& job_id) const;
  // A stored plan for exactly this resolved request (its request hash), if any.
  absl::StatusOr<std::optional<PlanningResult>> FindPlan(const PreparedRequest& request) const;
  // RecordToSnapshot, with a damaged record (DATA_LOSS) counted and logged.
  absl::StatusOr<JobSnapshot> Snapshot(const PlanRecord& record) const;

  // Stores a plan a Plan or Replan call computed (or served from the cache) as a SUCCEEDED
  // record and returns its job id. With a job key, ALREADY_EXISTS when another record took the
  // key meanwhile, unless `replace_key` (Replan), which moves the key to the new record. A
  // keyless plan's record is only its history, so it is written with PlanStore::InsertHistory:
  // the caller's answer does not wait for the disk; one over max_plan_bytes is not written
  // (RESOURCE_EXHAUSTED naming store_max_plan_bytes, counted, logged the first time).
  // `submitted_by` is the caller's ClientIdentity, kept as PlanRecord::submitted_by.
  absl::StatusOr<std::string> RecordPlan(const PreparedRequest& prepared,
                                         const PlanningResult& result, bool replace_key,
                                         const std::string& submitted_by) const;

  // A SubmitPlan job, before it is queued: a QUEUED record (ALREADY_EXISTS as for RecordPlan;
  // `replace_key` when the key's record is a failed or cancelled attempt). Returns the record as
  // stored, which the job's work then keeps up to date without reading it back.
  absl::StatusOr<PlanRecord> RecordQueued(const std::string& job_id,
                                          const PreparedRequest& prepared, bool replace_key,
                                          const std::string& submitted_by) const;

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

  // This replica's QUEUED and RUNNING records. Damaged ones are left out (counted and logged:
  // they cannot be resumed, and GetPlan answers DATA_LOSS for them).
  absl::StatusOr<std::vector<PlanRecord>> Unfinished() const;
  // Marks a record that cannot be resumed FAILED with `reason` (FAILED_PRECONDITION).
  void RecordUnresumable(PlanRecord record, const std::string& reason) const;

  absl::Status Delete(const std::string& job_id) const;
  // An operator's deletion of a finished record, named by exactly one of `job_id` and `job_key`
  // (INVALID_ARGUMENT otherwise): NOT_FOUND when the store holds none, FAILED_PRECONDITION
  // without a store or while the job is queued or running. A damaged record named by its job id
  // is deleted whatever it says (that is how an operator removes one). Returns the deleted
  // job's id.
  absl::StatusOr<std::string> DeleteFinished(const std::string& job_id,
                                             const std::string& job_key) const;

 private:
  // Counts one store call; returns `status` unchanged.
  absl::Status Count(const char* operation, const absl::Status& status) const;
  // A read that looked a record up by `name`: DATA_LOSS is reported as damage, a record without
  // a checksum as an unverified read. Returns `found` unchanged.
  const absl::StatusOr<std::optional<PlanRecord>>& Inspect(
      const absl::StatusOr<std::optional<PlanRecord>>& found, const std::string& name) const;
  // `found` unless it is "none" on a store MarkStoreDamaged: then UNAVAILABLE naming `name`.
  absl::StatusOr<std::optional<PlanRecord>> NotFoundOnDamagedStore(
      absl::StatusOr<std::optional<PlanRecord>> found, const std::string& name) const;
  // Counts and logs damage found under `name` (once per name).
  void ReportDamage(const std::string& name, absl::string_view detail) const;
  void ReportUnverified(const PlanRecord& record) const;
  PlanRecord NewRecord(const std::string& job_id, const PreparedRequest& prepared,
                       const std::string& submitted_by) const;
  absl::Status Store(const PlanRecord& record, bool replace_key) const;
  // A keyless plan's record (PlanStore::InsertHistory).
  absl::Status StoreHistory(const PlanRecord& record) const;

  PlanStore* const store_;
  const std::string owner_;
  const TaskLimits limits_;
  ServerMetrics* const metrics_;
  const PlanLedgerOptions options_;
  std::atomic<bool> shutting_down_{false};
  mutable std::mutex damage_mu_;
  mutable std::set<std::string> damaged_;  // names damage was reported under (bounded)
  std::string store_damage_;               // MarkStoreDamaged's reason; "" while none
  mutable std::atomic<bool> unverified_logged_{false};
  mutable std::atomic<bool> oversized_logged_{false};
};

// A stored record as a job snapshot (for GetPlan and WatchPlan of jobs the JobManager no
// longer holds, e.g. after a restart). DATA_LOSS naming the job when the stored plan does not
// parse or the status is unknown (what came from the store is escaped and cut short).
absl::StatusOr<JobSnapshot> RecordToSnapshot(const PlanRecord& record);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLAN_LEDGER_H_
