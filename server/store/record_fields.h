#ifndef SHARDPLAN_SERVER_STORE_RECORD_FIELDS_H_
#define SHARDPLAN_SERVER_STORE_RECORD_FIELDS_H_

// What the SQLite and PostgreSQL backends share: the table's columns, in one order, and the
// checks a record passes before either writes it. Internal to server/store.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "server/store/plan_store.h"

namespace shardplan::store_internal {

// Bumped with every schema change; a store refuses a database written by a newer version.
inline constexpr int kSchemaVersion = 1;

// The columns every SELECT returns, in PlanRecord's order (the readers rely on it).
inline constexpr char kSelectColumns[] =
    "job_id, job_key, request_hash, request_json, plan_json, algorithm, model_version, status, "
    "error_code, error_message, owner, submitted_unix_ms, started_unix_ms, finished_unix_ms";
inline constexpr int kColumnCount = 14;

// The records PlanStore::PruneFinished may delete (before the time cut), and the partial index
// that finds them oldest first. The index came after schema version 1, so both backends create it
// (IF NOT EXISTS) at every writable open.
inline constexpr char kPrunableCondition[] =
    "job_key = '' AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')";
inline constexpr char kCreatePrunableIndex[] =
    "CREATE INDEX IF NOT EXISTS plans_prunable ON plans (finished_unix_ms) WHERE job_key = ''";

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
