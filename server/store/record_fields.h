#ifndef SHARDPLAN_SERVER_STORE_RECORD_FIELDS_H_
#define SHARDPLAN_SERVER_STORE_RECORD_FIELDS_H_

// What the SQLite and PostgreSQL backends share: the table's columns, in one order, and the
// checks a record passes before either writes it. Internal to server/store.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/store/plan_store.h"

namespace shardplan::store_internal {

// Bumped with every schema change; a store refuses a database written by a newer version and
// migrates an older one when it opens it writable. 2 added `checksum` and `record_bytes`, 3
// `submitted_by` (the client identity that asked; '' for older records).
inline constexpr int kSchemaVersion = 3;

// PlanRecord's fields as columns, in its order (the writers bind them in this order).
#define SHARDPLAN_STORE_RECORD_COLUMNS                                                         \
  "job_id, job_key, request_hash, request_json, plan_json, algorithm, model_version, status, " \
  "error_code, error_message, owner, submitted_unix_ms, started_unix_ms, finished_unix_ms"
inline constexpr char kRecordColumns[] = SHARDPLAN_STORE_RECORD_COLUMNS;
// What an insert writes: the fields, then RecordBytes, RecordChecksum and submitted_by (17
// values; submitted_by came last, with schema version 3).
inline constexpr char kInsertColumns[] =
    SHARDPLAN_STORE_RECORD_COLUMNS ", record_bytes, checksum, submitted_by";
// The columns every SELECT returns: the fields, then the checksum and submitted_by (the readers
// rely on it).
inline constexpr char kSelectColumns[] = SHARDPLAN_STORE_RECORD_COLUMNS ", checksum, submitted_by";
#undef SHARDPLAN_STORE_RECORD_COLUMNS
inline constexpr int kColumnCount = 16;

// The records PlanStore::PruneFinished and PruneForSize may delete, and the partial index that
// finds them oldest first. The index came after schema version 1 (without a version of its own),
// so both backends create it (IF NOT EXISTS) at every writable open.
inline constexpr char kPrunableCondition[] =
    "job_key = '' AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')";
inline constexpr char kCreatePrunableIndex[] =
    "CREATE INDEX IF NOT EXISTS plans_prunable ON plans (finished_unix_ms) WHERE job_key = ''";
// PlanStore::Bytes reads only this index (schema version 2). record_bytes leads, so that no
// lookup by key or status prefers it to the indexes made for them.
inline constexpr char kCreateBytesIndex[] =
    "CREATE INDEX IF NOT EXISTS plans_bytes ON plans (record_bytes, job_key, status)";
inline constexpr char kBytesQuery[] =
    "SELECT COALESCE(SUM(record_bytes), 0), COALESCE(SUM(CASE WHEN job_key = '' AND status IN "
    "('SUCCEEDED', 'FAILED', 'CANCELLED') THEN 0 ELSE record_bytes END), 0) FROM plans";

// DATA_LOSS "<prefix>: <what>: job <id> fails its checksum ..." when `record` (as read) has a
// checksum that does not match its fields; OK when it matches or is "" (written before schema
// version 2: served unverified).
absl::Status VerifyChecksum(const PlanRecord& record, const std::string& backend,
                            const std::string& where, const std::string& what);

// For ListUnfinished: sets record.damage when its checksum does not match.
void MarkDamage(PlanRecord& record);

// PruneForSize: how many of the oldest prunable records (their RecordBytes in deletion order)
// free at least `excess` bytes, or all of them when they cannot.
size_t RecordsToFree(const std::vector<int64_t>& bytes, int64_t excess);

// INVALID_ARGUMENT unless PruneForSize's arguments are in range.
absl::Status ValidateSizeBound(int64_t max_bytes, int64_t max_records);

// INVALID_ARGUMENT unless PruneFinished's batch bound is at least 1.
absl::Status ValidatePruneBatch(int64_t max_records);

// INVALID_ARGUMENT naming the field for a record no backend may hold: an empty job_id, an
// unknown status, or a NUL byte (PostgreSQL's text cannot carry one, so neither backend takes it).
absl::Status ValidateRecord(const PlanRecord& record);

// "plan store (<backend> <where>): <what>: <detail>", the prefix of every store error.
std::string StoreMessage(const std::string& backend, const std::string& where,
                         const std::string& what, const std::string& detail);

}  // namespace shardplan::store_internal

#endif  // SHARDPLAN_SERVER_STORE_RECORD_FIELDS_H_
