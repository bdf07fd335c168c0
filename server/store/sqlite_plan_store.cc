#include "server/store/sqlite_plan_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/store/record_fields.h"

namespace shardplan {
namespace {

using store_internal::kInsertColumns;
using store_internal::kPrunableCondition;
using store_internal::kSelectColumns;

constexpr char kSqliteBackend[] = "sqlite";

// ?1..?14 are PlanRecord's fields in kRecordColumns' order, ?15 RecordBytes, ?16 RecordChecksum,
// ?17 submitted_by; UPDATE leaves ?2 and ?12 unused.
constexpr char kSqliteCreateSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS plans (
  job_id TEXT PRIMARY KEY NOT NULL,
  job_key TEXT NOT NULL DEFAULT '',
  request_hash TEXT NOT NULL,
  request_json TEXT NOT NULL,
  plan_json TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  model_version TEXT NOT NULL,
  status TEXT NOT NULL,
  error_code INTEGER NOT NULL,
  error_message TEXT NOT NULL,
  owner TEXT NOT NULL,
  submitted_unix_ms INTEGER NOT NULL,
  started_unix_ms INTEGER NOT NULL,
  finished_unix_ms INTEGER NOT NULL,
  record_bytes INTEGER NOT NULL DEFAULT 0,
  checksum TEXT NOT NULL DEFAULT '',
  submitted_by TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX IF NOT EXISTS plans_job_key ON plans (job_key) WHERE job_key <> '';
CREATE INDEX IF NOT EXISTS plans_succeeded ON plans (request_hash, status, finished_unix_ms);
CREATE INDEX IF NOT EXISTS plans_unfinished ON plans (owner, status, submitted_unix_ms);
)sql";

std::string SqliteSelect(const char* rest) {
  return absl::StrCat("SELECT ", kSelectColumns, " FROM plans ", rest);
}

// Schema version 1 to 2, in the caller's transaction: the columns (records written before keep
// checksum '' and are served unverified), the bytes of every record, and the version.
constexpr char kSqliteMigrateToV2[] = R"sql(
ALTER TABLE plans ADD COLUMN record_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plans ADD COLUMN checksum TEXT NOT NULL DEFAULT '';
UPDATE plans SET record_bytes = length(CAST(request_json AS BLOB)) +
    length(CAST(plan_json AS BLOB)) + length(CAST(error_message AS BLOB));
PRAGMA user_version = 2;
)sql";

// Schema version 2 to 3, in the caller's transaction: who submitted each record. Records written
// before have none ('') and stay readable by any planner, as they were; their checksums still
// verify (RecordChecksum of a record without submitted_by is version 2's).
constexpr char kSqliteMigrateToV3[] = R"sql(
ALTER TABLE plans ADD COLUMN submitted_by TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 3;
)sql";

// How long the start-up quick_check may run before it is stopped (PlanStore::QuickCheck).
constexpr auto kQuickCheckBudget = std::chrono::seconds(10);
// The SQLite VM instructions between two looks at the clock during quick_check.
constexpr int kProgressInterval = 100000;
// Lines of quick_check's findings kept in the message.
constexpr int kQuickCheckLines = 5;

struct Finalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, Finalizer>;

// Leaves a statement ready for its next use, whatever path the call took.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* statement) : statement_(statement) {}
  ~ResetOnExit() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* statement_;
};

// The strings must outlive the statement's step (SQLITE_STATIC: no copy of multi-MB JSON).
void BindText(sqlite3_stmt* statement, int index, const std::string& value) {
  sqlite3_bind_text(statement, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
}

// Binds ?1..?17; `checksum` holds RecordChecksum(r) and must outlive the step.
void BindRecord(sqlite3_stmt* statement, const PlanRecord& r, const std::string& checksum) {
  BindText(statement, 1, r.job_id);
  BindText(statement, 2, r.job_key);
  BindText(statement, 3, r.request_hash);
  BindText(statement, 4, r.request_json);
  BindText(statement, 5, r.plan_json);
  BindText(statement, 6, r.algorithm);
  BindText(statement, 7, r.model_version);
  BindText(statement, 8, r.status);
  sqlite3_bind_int64(statement, 9, r.error_code);
  BindText(statement, 10, r.error_message);
  BindText(statement, 11, r.owner);
  sqlite3_bind_int64(statement, 12, r.submitted_unix_ms);
  sqlite3_bind_int64(statement, 13, r.started_unix_ms);
  sqlite3_bind_int64(statement, 14, r.finished_unix_ms);
  sqlite3_bind_int64(statement, 15, RecordBytes(r));
  BindText(statement, 16, checksum);
  BindText(statement, 17, r.submitted_by);
}

std::string ColumnText(sqlite3_stmt* statement, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
  if (text == nullptr) return "";
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(statement, column)));
}

PlanRecord SqliteReadRecord(sqlite3_stmt* s) {
  PlanRecord r;
  r.job_id = ColumnText(s, 0);
  r.job_key = ColumnText(s, 1);
  r.request_hash = ColumnText(s, 2);
  r.request_json = ColumnText(s, 3);
  r.plan_json = ColumnText(s, 4);
  r.algorithm = ColumnText(s, 5);
  r.model_version = ColumnText(s, 6);
  r.status = ColumnText(s, 7);
  r.error_code = static_cast<int32_t>(sqlite3_column_int64(s, 8));
  r.error_message = ColumnText(s, 9);
  r.owner = ColumnText(s, 10);
  r.submitted_unix_ms = sqlite3_column_int64(s, 11);
  r.started_unix_ms = sqlite3_column_int64(s, 12);
  r.finished_unix_ms = sqlite3_column_int64(s, 13);
  r.checksum = ColumnText(s, 14);
  r.submitted_by = ColumnText(s, 15);
  return r;
}

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// The effective user's permission (access(2) would check the real one).
bool Writable(const std::string& path) {
  return faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
}

// An existing file of 0 bytes is what a wiped or truncated store looks like; SQLite would take it
// for a new database and start empty. It is a new one only while its WAL holds its first
// commits (the file gets its first page at the first checkpoint).
bool LooksWiped(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  if (std::filesystem::file_size(path, error) != 0 || error) return false;
  const std::uintmax_t wal = std::filesystem::file_size(path + "-wal", error);
  return error || wal == 0;
}

// Why SQLite could not open or write a file whose directory is read-only.
std::string DirectoryHint(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  if (Writable(dir)) return "";
  return absl::StrCat(" (directory ", dir,
                      " is not writable; WAL keeps the -wal and -shm files beside the database)");
}

}  // namespace

struct SqlitePlanStore::Statements {
  StatementPtr insert, update, release_key, get_by_id, get_by_key, find_succeeded, list_unfinished,
      remove, prune, count, bytes, oldest_prunable, remove_rowid, begin, commit, rollback;
};

SqlitePlanStore::SqlitePlanStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

SqlitePlanStore::~SqlitePlanStore() {
  statements_.reset();  // finalized before the connection closes
  sqlite3_close_v2(db_);
}

absl::StatusOr<std::unique_ptr<SqlitePlanStore>> SqlitePlanStore::Open(
    const std::string& path, const SqlitePlanStoreOptions& options) {
  auto fail = [&](const std::string& what, const std::string& detail) {
    return absl::UnavailableError(store_internal::StoreMessage(kSqliteBackend, path, what, detail));
  };
  if (path.empty()) return fail("open", "the path is empty");
  const std::string dir = DirectoryOf(path);
  std::error_code error;
  if (LooksWiped(path)) {
    return fail("open",
                "the file exists but is empty (0 bytes): a store wiped or truncated, not a new "
                "one; refusing to start empty over it. Restore it from a backup, or delete it to "
                "start with an empty store");
  }
  if (!std::filesystem::exists(path, error)) {
    if (!std::filesystem::is_directory(dir, error)) {
      return fail("create", absl::StrCat("directory ", dir, " does not exist"));
    }
    if (!Writable(dir)) {
      return fail("create", absl::StrCat("directory ", dir, " is not writable"));
    }
  }
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close_v2(db);
    return fail("open", detail + DirectoryHint(path));
  }
  std::unique_ptr<SqlitePlanStore> store(new SqlitePlanStore(path, db));
  if (absl::Status status = store->Initialize(options); !status.ok()) return status;
  return store;
}

absl::Status SqlitePlanStore::Initialize(const SqlitePlanStoreOptions& options) {
  sqlite3_extended_result_codes(db_, 1);
  read_only_ = sqlite3_db_readonly(db_, "main") == 1;
  if (absl::Status s = Exec(absl::StrCat("PRAGMA busy_timeout = ", options.busy_timeout_ms).c_str(),
                            "set busy_timeout");
      !s.ok()) {
    return s;
  }
  // The first statement that reads the file: a garbage file fails here ("not a database").
  absl::StatusOr<std::string> mode = QueryText("PRAGMA journal_mode = WAL", "enable WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal" && !read_only_) {
    return absl::UnavailableError(store_internal::StoreMessage(
        kSqliteBackend, path_, "enable WAL", absl::StrCat("journal mode stays ", *mode)));
  }
  if (absl::Status s = Exec("PRAGMA synchronous = FULL", "set synchronous"); !s.ok()) return s;
  if (options.max_page_count > 0) {
    if (absl::Status s =
            Exec(absl::StrCat("PRAGMA max_page_count = ", options.max_page_count).c_str(),
                 "set max_page_count");
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CreateSchemaIfMissing(); !s.ok()) return s;
  if (!read_only_) {
    for (const char* index :
         {store_internal::kCreatePrunableIndex, store_internal::kCreateBytesIndex}) {
      if (absl::Status s = Exec(index, "create index"); !s.ok()) return s;
    }
  }

  statements_ = std::make_unique<Statements>();
  const std::pair<StatementPtr*, std::string> sql[] = {
      {&statements_->insert,
       absl::StrCat("INSERT INTO plans (", kInsertColumns,
                    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                    "?16, ?17)")},
      {&statements_->update,
       "UPDATE plans SET request_hash = ?3, request_json = ?4, plan_json = ?5, algorithm = ?6, "
       "model_version = ?7, status = ?8, error_code = ?9, error_message = ?10, owner = ?11, "
       "started_unix_ms = ?13, finished_unix_ms = ?14, record_bytes = ?15, checksum = ?16, "
       "submitted_by = ?17 WHERE job_id = ?1"},
      {&statements_->release_key, "UPDATE plans SET job_key = '' WHERE job_key = ?1"},
      {&statements_->get_by_id, SqliteSelect("WHERE job_id = ?1")},
      {&statements_->get_by_key, SqliteSelect("WHERE job_key = ?1 AND job_key <> ''")},
      {&statements_->find_succeeded,
       SqliteSelect("WHERE request_hash = ?1 AND status = 'SUCCEEDED' "
                    "ORDER BY finished_unix_ms DESC, rowid DESC LIMIT 1")},
      {&statements_->list_unfinished,
       SqliteSelect("WHERE owner = ?1 AND status IN ('QUEUED', 'RUNNING') "
                    "ORDER BY submitted_unix_ms, rowid")},
      {&statements_->remove, "DELETE FROM plans WHERE job_id = ?1"},
      {&statements_->prune,
       absl::StrCat("DELETE FROM plans WHERE rowid IN (SELECT rowid FROM plans WHERE ",
                    kPrunableCondition,
                    " AND finished_unix_ms < ?1 ORDER BY finished_unix_ms LIMIT ?2)")},
      {&statements_->count, "SELECT COUNT(*) FROM plans"},
      {&statements_->bytes, store_internal::kBytesQuery},
      {&statements_->oldest_prunable,
       absl::StrCat("SELECT rowid, record_bytes FROM plans WHERE ", kPrunableCondition,
                    " ORDER BY finished_unix_ms, rowid LIMIT ?1")},
      {&statements_->remove_rowid, "DELETE FROM plans WHERE rowid = ?1"},
      {&statements_->begin, "BEGIN IMMEDIATE"},
      {&statements_->commit, "COMMIT"},
      {&statements_->rollback, "ROLLBACK"},
  };
  for (const auto& [target, text] : sql) {
    sqlite3_stmt* statement = nullptr;
    const int code = sqlite3_prepare_v3(db_, text.c_str(), static_cast<int>(text.size()),
                                        SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
    if (code != SQLITE_OK) return Error(code, absl::StrCat("prepare \"", text, "\""));
    target->reset(statement);
  }
  return absl::OkStatus();
}

absl::Status SqlitePlanStore::CreateSchemaIfMissing() {
  absl::StatusOr<std::string> version = QueryText("PRAGMA user_version", "read schema version");
  if (!version.ok()) return version.status();
  if (*version == "0") {
    if (read_only_) {
      return absl::UnavailableError(
          store_internal::StoreMessage(kSqliteBackend, path_, "create schema",
                                       "the file is read-only and has no plan-store schema"));
    }
    // Under the write lock, so that two processes opening a new file create it once.
    if (absl::Status s = Exec("BEGIN IMMEDIATE", "create schema"); !s.ok()) return s;
    version = QueryText("PRAGMA user_version", "read schema version");
    absl::Status created = version.status();
    if (created.ok() && *version == "0") {
      created = Exec(kSqliteCreateSchema, "create schema");
      if (created.ok()) {
        created =
            Exec(absl::StrCat("PRAGMA user_version = ", store_internal::kSchemaVersion).c_str(),
                 "create schema");
      }
      if (created.ok()) version = absl::StrCat(store_internal::kSchemaVersion);
    }
    if (created.ok()) created = Exec("COMMIT", "create schema");
    if (!created.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return created;
    }
  }
  if (*version == "1" || *version == "2") {
    if (read_only_) {
      return absl::UnavailableError(store_internal::StoreMessage(
          kSqliteBackend, path_, "migrate schema",
          absl::StrCat("the file has schema version ", *version,
                       " and is read-only, so it cannot be migrated to version ",
                       store_internal::kSchemaVersion,
                       " (checksums, submitted_by); open it once writable, then make it "
                       "read-only again")));
    }
    if (absl::Status s = Exec("BEGIN IMMEDIATE", "migrate schema"); !s.ok()) return s;
    version = QueryText("PRAGMA user_version", "read schema version");
    absl::Status migrated = version.status();
    // Step by step; another process may have migrated it meanwhile.
    if (migrated.ok() && *version == "1") {
      migrated = Exec(kSqliteMigrateToV2, "migrate schema to version 2");
      if (migrated.ok()) version = "2";
    }
    if (migrated.ok() && *version == "2") {
      migrated = Exec(kSqliteMigrateToV3, "migrate schema to version 3");
      if (migrated.ok()) version = "3";
    }
    if (migrated.ok()) migrated = Exec("COMMIT", "migrate schema");
    if (!migrated.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return migrated;
    }
  }
  if (*version != absl::StrCat(store_internal::kSchemaVersion)) {
    return absl::UnavailableError(store_internal::StoreMessage(
        kSqliteBackend, path_, "open",
        absl::StrCat("schema version ", *version, " is not the one this build knows (",
                     store_internal::kSchemaVersion, ")")));
  }
  return absl::OkStatus();
}

absl::Status SqlitePlanStore::Error(int code, const std::string& what) const {
  std::string detail = sqlite3_errmsg(db_);
  if ((code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN) {
    absl::StrAppend(&detail, read_only_ ? " (the file is read-only)" : DirectoryHint(path_));
  }
  std::string message = store_internal::StoreMessage(kSqliteBackend, path_, what, detail);
  // Damage the database finds once it is open: what was asked for is lost, not unreachable.
  if (statements_ != nullptr &&
      ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB)) {
    return absl::DataLossError(std::move(message));
  }
  return absl::UnavailableError(std::move(message));
}

absl::Status SqlitePlanStore::Exec(const char* sql, const std::string& what) {
  const int code = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return code == SQLITE_OK ? absl::OkStatus() : Error(code, what);
}

absl::StatusOr<std::string> SqlitePlanStore::QueryText(const char* sql, const std::string& what) {
  sqlite3_stmt* raw = nullptr;
  int code = sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr);
  StatementPtr statement(raw);
  if (code != SQLITE_OK) return Error(code, what);
  code = sqlite3_step(raw);
  if (code == SQLITE_ROW) return ColumnText(raw, 0);
  if (code == SQLITE_DONE) return std::string();
  return Error(code, what);
}

absl::Status SqlitePlanStore::Step(sqlite3_stmt* statement, const std::string& what) {
  ResetOnExit reset(statement);
  const int code = sqlite3_step(statement);
  return code == SQLITE_DONE ? absl::OkStatus() : Error(code, what);
}

absl::StatusOr<std::vector<PlanRecord>> SqlitePlanStore::Query(sqlite3_stmt* statement,
                                                               const std::string& what) {
  ResetOnExit reset(statement);
  std::vector<PlanRecord> records;
  for (;;) {
    const int code = sqlite3_step(statement);
    if (code == SQLITE_DONE) return records;
    if (code != SQLITE_ROW) return Error(code, what);
    records.push_back(SqliteReadRecord(statement));
  }
}

absl::StatusOr<std::optional<PlanRecord>> SqlitePlanStore::QueryOne(sqlite3_stmt* statement,
                                                                    const std::string& what) {
  absl::StatusOr<std::vector<PlanRecord>> records = Query(statement, what);
  if (!records.ok()) return records.status();
  if (records->empty()) return std::nullopt;
  if (absl::Status s =
          store_internal::VerifyChecksum(records->front(), kSqliteBackend, path_, what);
      !s.ok()) {
    return s;
  }
  return std::move(records->front());
}

absl::Status SqlitePlanStore::InsertLocked(const PlanRecord& record, const std::string& what) {
  sqlite3_stmt* statement = statements_->insert.get();
  ResetOnExit reset(statement);
  const std::string checksum = RecordChecksum(record);
  BindRecord(statement, record, checksum);
  const int code = sqlite3_step(statement);
  if (code == SQLITE_DONE) return absl::OkStatus();
  if ((code & 0xff) == SQLITE_CONSTRAINT) {
    const bool key = std::string(sqlite3_errmsg(db_)).find("job_key") != std::string::npos;
    return absl::AlreadyExistsError(store_internal::StoreMessage(
        kSqliteBackend, path_, what,
        key ? absl::StrCat("job_key \"", record.job_key, "\" is held by another record")
            : absl::StrCat("job_id ", record.job_id, " already exists")));
  }
  return Error(code, what);
}

absl::Status SqlitePlanStore::Insert(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  std::lock_guard lock(mu_);
  return InsertLocked(record, "insert");
}

absl::Status SqlitePlanStore::InsertHistory(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  std::lock_guard lock(mu_);
  // In WAL mode NORMAL commits to the WAL without syncing it: the record is in the file (and
  // survives this process) when the call returns, but not necessarily on the disk. Every other
  // write of the connection stays FULL.
  if (absl::Status s = Exec("PRAGMA synchronous = NORMAL", "insert history: relax"); !s.ok()) {
    return s;
  }
  const absl::Status inserted = InsertLocked(record, "insert history");
  const absl::Status restored = Exec("PRAGMA synchronous = FULL", "insert history: restore");
  return inserted.ok() ? restored : inserted;
}

absl::Status SqlitePlanStore::Update(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  std::lock_guard lock(mu_);
  sqlite3_stmt* statement = statements_->update.get();
  const std::string checksum = RecordChecksum(record);
  BindRecord(statement, record, checksum);
  if (absl::Status s = Step(statement, "update"); !s.ok()) return s;
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(store_internal::StoreMessage(
        kSqliteBackend, path_, "update", absl::StrCat("no record with job_id ", record.job_id)));
  }
  return absl::OkStatus();
}

absl::Status SqlitePlanStore::ReplaceKeyed(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  if (record.job_key.empty()) {
    return absl::InvalidArgumentError("plan store: ReplaceKeyed needs a record with a job_key");
  }
  std::lock_guard lock(mu_);
  if (absl::Status s = Step(statements_->begin.get(), "replace keyed: begin"); !s.ok()) return s;
  sqlite3_stmt* release = statements_->release_key.get();
  BindText(release, 1, record.job_key);
  absl::Status status = Step(release, "replace keyed: release the key");
  if (status.ok()) status = InsertLocked(record, "replace keyed: insert");
  if (status.ok()) status = Step(statements_->commit.get(), "replace keyed: commit");
  if (!status.ok() && !sqlite3_get_autocommit(db_)) {
    (void)Step(statements_->rollback.get(), "replace keyed: rollback");
  }
  return status;
}

absl::StatusOr<std::optional<PlanRecord>> SqlitePlanStore::GetByJobId(const std::string& job_id) {
  std::lock_guard lock(mu_);
  BindText(statements_->get_by_id.get(), 1, job_id);
  return QueryOne(statements_->get_by_id.get(),
                  absl::StrCat("get by job_id ", PrintableExcerpt(job_id)));
}

absl::StatusOr<std::optional<PlanRecord>> SqlitePlanStore::GetByJobKey(const std::string& job_key) {
  std::lock_guard lock(mu_);
  BindText(statements_->get_by_key.get(), 1, job_key);
  return QueryOne(statements_->get_by_key.get(),
                  absl::StrCat("get by job_key \"", PrintableExcerpt(job_key, 256), "\""));
}

absl::StatusOr<std::optional<PlanRecord>> SqlitePlanStore::FindSucceeded(
    const std::string& request_hash) {
  std::lock_guard lock(mu_);
  BindText(statements_->find_succeeded.get(), 1, request_hash);
  return QueryOne(statements_->find_succeeded.get(),
                  absl::StrCat("find succeeded for request hash ", PrintableExcerpt(request_hash)));
}

absl::StatusOr<std::vector<PlanRecord>> SqlitePlanStore::ListUnfinished(const std::string& owner) {
  std::lock_guard lock(mu_);
  BindText(statements_->list_unfinished.get(), 1, owner);
  absl::StatusOr<std::vector<PlanRecord>> records =
      Query(statements_->list_unfinished.get(), "list unfinished");
  if (records.ok()) {
    for (PlanRecord& record : *records) store_internal::MarkDamage(record);
  }
  return records;
}

absl::Status SqlitePlanStore::Delete(const std::string& job_id) {
  std::lock_guard lock(mu_);
  BindText(statements_->remove.get(), 1, job_id);
  if (absl::Status s = Step(statements_->remove.get(), "delete"); !s.ok()) return s;
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(store_internal::StoreMessage(
        kSqliteBackend, path_, "delete", absl::StrCat("no record with job_id ", job_id)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SqlitePlanStore::PruneFinished(int64_t finished_before_unix_ms,
                                                       int64_t max_records) {
  if (absl::Status s = store_internal::ValidatePruneBatch(max_records); !s.ok()) return s;
  std::lock_guard lock(mu_);
  sqlite3_stmt* statement = statements_->prune.get();
  sqlite3_bind_int64(statement, 1, finished_before_unix_ms);
  sqlite3_bind_int64(statement, 2, max_records);
  if (absl::Status s = Step(statement, "prune"); !s.ok()) return s;
  return static_cast<int64_t>(sqlite3_changes(db_));
}

absl::StatusOr<int64_t> SqlitePlanStore::Count() {
  std::lock_guard lock(mu_);
  sqlite3_stmt* statement = statements_->count.get();
  ResetOnExit reset(statement);
  const int code = sqlite3_step(statement);
  if (code != SQLITE_ROW) return Error(code, "count");
  return sqlite3_column_int64(statement, 0);
}

absl::StatusOr<StoredBytes> SqlitePlanStore::BytesLocked() {
  sqlite3_stmt* statement = statements_->bytes.get();
  ResetOnExit reset(statement);
  const int code = sqlite3_step(statement);
  if (code != SQLITE_ROW) return Error(code, "sum bytes");
  return StoredBytes{.total = sqlite3_column_int64(statement, 0),
                     .kept = sqlite3_column_int64(statement, 1)};
}

absl::StatusOr<StoredBytes> SqlitePlanStore::Bytes() {
  std::lock_guard lock(mu_);
  return BytesLocked();
}

absl::StatusOr<int64_t> SqlitePlanStore::PruneForSize(int64_t max_bytes, int64_t max_records) {
  if (absl::Status s = store_internal::ValidateSizeBound(max_bytes, max_records); !s.ok()) {
    return s;
  }
  std::lock_guard lock(mu_);
  if (absl::Status s = Step(statements_->begin.get(), "prune for size: begin"); !s.ok()) return s;
  int64_t deleted = 0;
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<StoredBytes> bytes = BytesLocked();
    if (!bytes.ok()) return bytes.status();
    if (bytes->total <= max_bytes) return absl::OkStatus();
    std::vector<int64_t> rowids, sizes;
    sqlite3_stmt* oldest = statements_->oldest_prunable.get();
    {
      ResetOnExit reset(oldest);
      sqlite3_bind_int64(oldest, 1, max_records);
      int code;
      while ((code = sqlite3_step(oldest)) == SQLITE_ROW) {
        rowids.push_back(sqlite3_column_int64(oldest, 0));
        sizes.push_back(sqlite3_column_int64(oldest, 1));
      }
      if (code != SQLITE_DONE) return Error(code, "prune for size: find the oldest");
    }
    const size_t n = store_internal::RecordsToFree(sizes, bytes->total - max_bytes);
    sqlite3_stmt* remove = statements_->remove_rowid.get();
    for (size_t i = 0; i < n; ++i) {
      sqlite3_bind_int64(remove, 1, rowids[i]);
      if (absl::Status s = Step(remove, "prune for size: delete"); !s.ok()) return s;
      deleted += sqlite3_changes(db_);
    }
    return absl::OkStatus();
  }();
  if (status.ok()) status = Step(statements_->commit.get(), "prune for size: commit");
  if (!status.ok()) {
    if (!sqlite3_get_autocommit(db_)) (void)Step(statements_->rollback.get(), "rollback");
    return status;
  }
  return deleted;
}

absl::Status SqlitePlanStore::QuickCheck() {
  std::lock_guard lock(mu_);
  // The bound: the check is stopped (SQLITE_INTERRUPT) once its budget is spent, so a very large
  // file delays the start by at most that much.
  struct Budget {
    std::chrono::steady_clock::time_point until;
    bool spent = false;
  } budget{std::chrono::steady_clock::now() + kQuickCheckBudget};
  sqlite3_progress_handler(
      db_, kProgressInterval,
      [](void* arg) {
        auto* b = static_cast<Budget*>(arg);
        b->spent = std::chrono::steady_clock::now() >= b->until;
        return b->spent ? 1 : 0;
      },
      &budget);
  // quick_check (the pages and b-trees) first, then integrity_check (every index against the
  // table: a damaged index is what makes a stored job look absent), within one budget.
  absl::Status status = absl::OkStatus();
  for (const char* pragma : {"quick_check", "integrity_check"}) {
    const std::string sql = absl::StrCat("PRAGMA ", pragma, "(", kQuickCheckLines, ")");
    sqlite3_stmt* raw = nullptr;
    int code = sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr);
    StatementPtr statement(raw);
    std::vector<std::string> findings;
    if (code == SQLITE_OK) {
      while ((code = sqlite3_step(raw)) == SQLITE_ROW) findings.push_back(ColumnText(raw, 0));
    }
    if (budget.spent) {
      status = absl::DeadlineExceededError(store_internal::StoreMessage(
          kSqliteBackend, path_, pragma,
          absl::StrCat("not finished within ", kQuickCheckBudget.count(), " s; not checked")));
      break;
    }
    if (code != SQLITE_DONE) {
      status = Error(code, pragma);  // DATA_LOSS when corrupt
      break;
    }
    if (findings.size() == 1 && findings.front() == "ok") continue;
    std::string detail;
    for (const std::string& line : findings) {
      absl::StrAppend(&detail, detail.empty() ? "" : "; ", PrintableExcerpt(line, 200));
    }
    status =
        absl::DataLossError(store_internal::StoreMessage(kSqliteBackend, path_, pragma, detail));
    break;
  }
  sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  return status;
}

}  // namespace shardplan
