#ifndef SHARDPLAN_SERVER_STORE_SQLITE_PLAN_STORE_H_
#define SHARDPLAN_SERVER_STORE_SQLITE_PLAN_STORE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/plan_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace shardplan {

struct SqlitePlanStoreOptions {
  // How long a call waits for another connection's (thread's or process's) write lock before it
  // gives up with UNAVAILABLE "database is locked".
  int busy_timeout_ms = 30000;
  // Caps the file at this many pages (PRAGMA max_page_count; 4 KiB pages): writes past it fail
  // UNAVAILABLE "database or disk is full", exactly as on a full disk. 0 keeps SQLite's limit.
  int64_t max_page_count = 0;
};

// PlanStore in one SQLite file, for a single replica (or several processes on one machine).
// WAL journal with synchronous=FULL: a call that returned OK is on disk (see docs/plan-store.md).
// One connection guarded by a mutex; statements are prepared once.
//
// An existing file of 0 bytes (with no WAL beside it) is refused: that is a store wiped or
// truncated, and opening it would start an empty store over it without a word.
//
// A file the process may not write (chmod 0444) still opens: reads work, and every write fails
// UNAVAILABLE "attempt to write a readonly database", so a server keeps answering from the plans
// it has. A file in a directory it may not write does not open (WAL keeps <file>-wal and
// <file>-shm beside the file): UNAVAILABLE naming the directory.
class SqlitePlanStore final : public PlanStore {
 public:
  // Opens (creating when missing) the file at `path` and its schema.
  static absl::StatusOr<std::unique_ptr<SqlitePlanStore>> Open(
      const std::string& path, const SqlitePlanStoreOptions& options = {});

  ~SqlitePlanStore() override;
  SqlitePlanStore(const SqlitePlanStore&) = delete;
  SqlitePlanStore& operator=(const SqlitePlanStore&) = delete;

  std::string backend() const override { return "sqlite"; }
  const std::string& path() const { return path_; }
  // True when the file opened read-only (every write fails UNAVAILABLE).
  bool read_only() const { return read_only_; }

  absl::Status Insert(const PlanRecord& record) override;
  absl::Status Update(const PlanRecord& record) override;
  absl::Status ReplaceKeyed(const PlanRecord& record) override;
  absl::Status InsertHistory(const PlanRecord& record) override;
  absl::StatusOr<std::optional<PlanRecord>> GetByJobId(const std::string& job_id) override;
  absl::StatusOr<std::optional<PlanRecord>> GetByJobKey(const std::string& job_key) override;
  absl::StatusOr<std::optional<PlanRecord>> FindSucceeded(const std::string& request_hash) override;
  absl::StatusOr<std::vector<PlanRecord>> ListUnfinished(const std::string& owner) override;
  absl::Status Delete(const std::string& job_id) override;
  absl::StatusOr<int64_t> PruneFinished(int64_t finished_before_unix_ms,
                                        int64_t max_records) override;
  absl::StatusOr<int64_t> Count() override;
  absl::StatusOr<StoredBytes> Bytes() override;
  absl::StatusOr<int64_t> PruneForSize(int64_t max_bytes, int64_t max_records) override;
  // PRAGMA quick_check, then integrity_check (indexes against the table), stopped together after
  // 10 s (DEADLINE_EXCEEDED); DATA_LOSS with their first findings, escaped.
  absl::Status QuickCheck() override;

 private:
  struct Statements;

  SqlitePlanStore(std::string path, sqlite3* db);
  absl::Status Initialize(const SqlitePlanStoreOptions& options);
  absl::Status CreateSchemaIfMissing();

  // UNAVAILABLE "plan store (sqlite <path>): <what>: <sqlite's message>" for result `code`.
  absl::Status Error(int code, const std::string& what) const;
  absl::Status Exec(const char* sql, const std::string& what);
  absl::StatusOr<std::string> QueryText(const char* sql, const std::string& what);
  // Runs `statement` (bound by the caller) to completion; reset afterwards.
  absl::Status Step(sqlite3_stmt* statement, const std::string& what);
  absl::Status InsertLocked(const PlanRecord& record, const std::string& what);
  absl::StatusOr<std::vector<PlanRecord>> Query(sqlite3_stmt* statement, const std::string& what);
  // Query for one record, checked against its checksum (DATA_LOSS naming `what`).
  absl::StatusOr<std::optional<PlanRecord>> QueryOne(sqlite3_stmt* statement,
                                                     const std::string& what);
  absl::StatusOr<StoredBytes> BytesLocked();

  const std::string path_;
  sqlite3* db_;
  bool read_only_ = false;
  std::mutex mu_;
  std::unique_ptr<Statements> statements_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STORE_SQLITE_PLAN_STORE_H_
