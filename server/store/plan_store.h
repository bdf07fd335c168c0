#ifndef SHARDPLAN_SERVER_STORE_PLAN_STORE_H_
#define SHARDPLAN_SERVER_STORE_PLAN_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shardplan {

// One planning job as the store keeps it: every synchronous plan the server computed, every
// SubmitPlan job, and the plans training jobs named with a job key. The store knows nothing of
// protobuf: the request and the plan are the proto3 JSON the server wrote.
struct PlanRecord {
  std::string job_id;        // primary key: 32 lowercase hex characters
  std::string job_key;       // the name a training job gave its plan; "" for none (unique when set)
  std::string request_hash;  // PlanCacheKey of the resolved request (Plan.request_hash)
  std::string request_json;  // the PlanRequest as received, canonical proto3 JSON
  std::string plan_json;     // the PlanResponse.plan; "" unless status is "SUCCEEDED"
  std::string algorithm;     // resolved algorithm name
  std::string model_version;  // exact "name@version" the job was resolved to
  std::string status;         // "QUEUED", "RUNNING", "SUCCEEDED", "FAILED" or "CANCELLED"
  int32_t error_code = 0;     // google.rpc.Code when FAILED or CANCELLED
  std::string error_message;
  std::string owner;  // replica that runs the job (ServerConfig::replica_id)
  int64_t submitted_unix_ms = 0;
  int64_t started_unix_ms = 0;   // 0 until it runs
  int64_t finished_unix_ms = 0;  // 0 until it ends
  // The client identity that asked for it (ClientIdentity: "token:<name>", "cert:<name>",
  // "peer:<host>"): whom GetPlan, WatchPlan and CancelPlan answer for it when it is a token or
  // certificate identity (admins excepted). "" for records written before schema version 3,
  // which belong to no one (any planner may read them, as before).
  std::string submitted_by;

  // Set by reads, ignored by writes (the store computes it): the SHA-256 the store keeps with the
  // record (RecordChecksum), "" for a record written before schema version 2, which is served
  // unverified. A read whose record does not match its checksum answers DATA_LOSS instead.
  std::string checksum;
  // Set only by ListUnfinished, which returns damaged records too (so that nothing is skipped
  // silently): why this record fails its checksum. Its other fields are then as read, not to be
  // trusted (job_id included).
  std::string damage;
};

// Lowercase hex SHA-256 over every field of `record` that an answer is made of: job_id, the
// request (hash and JSON), the plan, algorithm, model version, status, error, owner, the start
// and finish times and submitted_by. A record without submitted_by hashes as it did in schema
// version 2 (so records migrated from it still verify), one with it under another prefix (so
// neither clearing nor setting it passes). Not job_key (ReplaceKeyed moves keys without rewriting
// records; a key read back is checked by comparing the stored request with the asked one) nor
// submitted_unix_ms (Update keeps the stored one, whatever the record passed says). What a store
// keeps with each record and compares on every read.
std::string RecordChecksum(const PlanRecord& record);

// The bytes a record holds in the store, as store_max_plan_bytes and store_max_bytes count them:
// its request, plan and error text (the other fields are a few dozen bytes).
int64_t RecordBytes(const PlanRecord& record);

// `text` fit for a message or a log line whatever bytes it holds: C-escaped (quotes, control
// and non-ASCII bytes as \xNN), cut to `max_bytes` of input with "..." after it.
std::string PrintableExcerpt(absl::string_view text, size_t max_bytes = 64);

// The payload a store's DATA_LOSS for a record that fails its checksum carries: the job id it
// read (escaped, PrintableExcerpt), so that callers count a damaged record once whatever it was
// looked up by.
inline constexpr char kDamagedJobIdPayload[] = "type.shardplan.dev/store.DamagedJobId";

// What the store's records hold, in RecordBytes.
struct StoredBytes {
  int64_t total = 0;
  // Of which records that size pruning never deletes: keyed and unfinished ones.
  int64_t kept = 0;
};

// The durable home of plans and jobs. Implementations are thread-safe, and each call is one
// transaction: after it returns OK the change survives a crash of the process (kill -9) and, as
// far as the database promises it, of the machine. A failed call changes nothing and returns
// UNAVAILABLE (database unreachable, disk full, read-only file: the message says which) or the
// code documented below; it never throws. A record no backend can hold (empty job_id, a status
// not among the five, a NUL byte in a string) is INVALID_ARGUMENT naming the field.
//
// Damage: every write stores RecordChecksum with the record, and every read compares it. A read
// whose record fails its checksum, or that the database itself finds corrupt (SQLite's
// SQLITE_CORRUPT, PostgreSQL's XX001/XX002), answers DATA_LOSS naming what was looked up (job
// id, job key or request hash) and, escaped, the job id read; never another record, never raw
// bytes of the file.
class PlanStore {
 public:
  virtual ~PlanStore() = default;

  // "sqlite" or "postgresql", for logs and metrics.
  virtual std::string backend() const = 0;

  // Adds a new record. ALREADY_EXISTS when its job_id exists, or when its job_key is set and
  // another record holds it (the message names which), so two replicas racing on one key cannot
  // both win.
  virtual absl::Status Insert(const PlanRecord& record) = 0;

  // Insert for records nothing depends on (the history of keyless Plan calls): the call may
  // return once the record survives a crash of this process, without waiting for the disk, so a
  // crash of the machine may lose the last ones. SQLite writes its WAL without the fsync
  // (synchronous=NORMAL for this commit: 4 ms less per Plan call on this project's machine);
  // backends without such a mode insert durably. Errors as Insert.
  virtual absl::Status InsertHistory(const PlanRecord& record) { return Insert(record); }

  // Overwrites the record with record.job_id: every field but job_id, job_key and
  // submitted_unix_ms (submitted_by included: pass the record as read or inserted). NOT_FOUND when
  // it does not exist.
  virtual absl::Status Update(const PlanRecord& record) = 0;

  // Atomically gives `record.job_key` to `record` (a new job_id): the record that held the key,
  // if any, keeps its data but loses the key, then `record` is inserted. An explicit re-plan.
  // INVALID_ARGUMENT when record.job_key is empty; ALREADY_EXISTS (and no change) when its
  // job_id exists.
  virtual absl::Status ReplaceKeyed(const PlanRecord& record) = 0;

  // nullopt when absent.
  virtual absl::StatusOr<std::optional<PlanRecord>> GetByJobId(const std::string& job_id) = 0;
  virtual absl::StatusOr<std::optional<PlanRecord>> GetByJobKey(const std::string& job_key) = 0;

  // The most recently finished SUCCEEDED record with this request hash (a plan for exactly this
  // request, model version included), or nullopt: what a cold cache falls back to.
  virtual absl::StatusOr<std::optional<PlanRecord>> FindSucceeded(
      const std::string& request_hash) = 0;

  // Records of `owner` in status QUEUED or RUNNING, oldest submitted first: what a restarted
  // replica must resume or fail.
  virtual absl::StatusOr<std::vector<PlanRecord>> ListUnfinished(const std::string& owner) = 0;

  // Removes the record. NOT_FOUND when it does not exist.
  virtual absl::Status Delete(const std::string& job_id) = 0;

  // Retention: deletes up to `max_records` records that finished (SUCCEEDED, FAILED or CANCELLED)
  // before `finished_before_unix_ms` and hold no job key, oldest first, and returns how many it
  // deleted. Keyed records are a training job's promise of its plan and stay until DeletePlan;
  // unfinished ones are work to resume. The batch bound keeps each transaction, and so the time
  // writers wait for it, short. INVALID_ARGUMENT when max_records < 1.
  virtual absl::StatusOr<int64_t> PruneFinished(int64_t finished_before_unix_ms,
                                                int64_t max_records) = 0;

  // Records in the store (all statuses).
  virtual absl::StatusOr<int64_t> Count() = 0;

  // The bytes the records hold (RecordBytes, summed), in all and of the kept ones.
  virtual absl::StatusOr<StoredBytes> Bytes() = 0;

  // Size bound: while the records hold more than `max_bytes`, deletes the oldest finished
  // keyless records (as PruneFinished may, whatever their age), at most `max_records` in one
  // transaction, and returns how many it deleted (fewer than max_records: nothing more to do or
  // nothing more it may delete). Keyed and unfinished records are never deleted for size.
  // INVALID_ARGUMENT when max_records < 1 or max_bytes < 0.
  virtual absl::StatusOr<int64_t> PruneForSize(int64_t max_bytes, int64_t max_records) = 0;

  // A bounded check of the database's own structures, run at start-up: OK when sound or when the
  // backend has no such check (PostgreSQL: its page checksums and amcheck are the database
  // administrator's), DATA_LOSS with what it found (escaped, a few lines), DEADLINE_EXCEEDED
  // when its time bound cut it short, UNAVAILABLE when it cannot run.
  virtual absl::Status QuickCheck() { return absl::OkStatus(); }
};

// Opens the store a `store` setting names, creating the schema when missing:
//   "sqlite:<path>"        an SQLite file (created with its directory's permissions), WAL mode
//   "postgresql://..."     a PostgreSQL connection URI (libpq), for several replicas
//   "postgres://..."       the same
// INVALID_ARGUMENT naming `store` for any other spelling; UNAVAILABLE when the database cannot
// be opened or its schema created (the message carries the database's own reason).
absl::StatusOr<std::unique_ptr<PlanStore>> OpenPlanStore(const std::string& store);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STORE_PLAN_STORE_H_
