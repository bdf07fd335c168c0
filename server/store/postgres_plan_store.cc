#include "server/store/postgres_plan_store.h"

#include <libpq-fe.h>

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "server/store/record_fields.h"

namespace shardplan {
namespace {

using store_internal::kColumnCount;
using store_internal::kInsertColumns;
using store_internal::kPrunableCondition;
using store_internal::kSelectColumns;

constexpr char kBackend[] = "postgresql";
// Any constant: replicas that start together take it while they create the schema.
constexpr char kSchemaLockKey[] = "7309383017215120481";
// Another: replicas pruning for size take it, so that each sees what the others deleted.
constexpr char kSizeLockKey[] = "7309383017215120482";

constexpr char kCreateSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS plan_store_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS plans (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  job_id TEXT PRIMARY KEY,
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
  submitted_unix_ms BIGINT NOT NULL,
  started_unix_ms BIGINT NOT NULL,
  finished_unix_ms BIGINT NOT NULL,
  record_bytes BIGINT NOT NULL DEFAULT 0,
  checksum TEXT NOT NULL DEFAULT '',
  submitted_by TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX IF NOT EXISTS plans_job_key ON plans (job_key) WHERE job_key <> '';
CREATE INDEX IF NOT EXISTS plans_succeeded ON plans (request_hash, status, finished_unix_ms);
CREATE INDEX IF NOT EXISTS plans_unfinished ON plans (owner, status, submitted_unix_ms);
)sql";

// Schema version 1 to 2 (in the creating transaction, under its lock): the columns (records
// written before keep checksum '' and are served unverified), every record's bytes, the version.
constexpr char kMigrateToV2[] = R"sql(
ALTER TABLE plans ADD COLUMN IF NOT EXISTS record_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE plans ADD COLUMN IF NOT EXISTS checksum TEXT NOT NULL DEFAULT '';
UPDATE plans SET record_bytes = octet_length(request_json) + octet_length(plan_json) +
    octet_length(error_message);
UPDATE plan_store_schema SET version = 2;
)sql";

// Schema version 2 to 3 (likewise): who submitted each record; '' for those written before,
// which stay readable by any planner and whose checksums still verify.
constexpr char kMigrateToV3[] = R"sql(
ALTER TABLE plans ADD COLUMN IF NOT EXISTS submitted_by TEXT NOT NULL DEFAULT '';
UPDATE plan_store_schema SET version = 3;
)sql";

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

std::string Select(const char* rest) {
  return absl::StrCat("SELECT ", kSelectColumns, " FROM plans ", rest);
}

// $1..$14 are PlanRecord's fields in kRecordColumns' order, $15 RecordBytes, $16 RecordChecksum,
// $17 submitted_by.
std::vector<std::string> RecordParams(const PlanRecord& r) {
  return {r.job_id,
          r.job_key,
          r.request_hash,
          r.request_json,
          r.plan_json,
          r.algorithm,
          r.model_version,
          r.status,
          absl::StrCat(r.error_code),
          r.error_message,
          r.owner,
          absl::StrCat(r.submitted_unix_ms),
          absl::StrCat(r.started_unix_ms),
          absl::StrCat(r.finished_unix_ms),
          absl::StrCat(RecordBytes(r)),
          RecordChecksum(r),
          r.submitted_by};
}

const std::string& InsertSql() {
  static const std::string* sql = new std::string(
      absl::StrCat("INSERT INTO plans (", kInsertColumns,
                   ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
                   "$16, $17)"));
  return *sql;
}

// The connection options of `uri` (nullptr and `error` set when libpq cannot parse it).
struct ConnInfo {
  std::string user, host, port, dbname, password;
};

std::optional<ConnInfo> ParseUri(const std::string& uri, std::string* error) {
  char* message = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &message);
  if (options == nullptr) {
    *error = message != nullptr ? message : "out of memory";
    PQfreemem(message);
    return std::nullopt;
  }
  ConnInfo info;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::strcmp(o->keyword, "user") == 0) info.user = o->val;
    if (std::strcmp(o->keyword, "host") == 0) info.host = o->val;
    if (std::strcmp(o->keyword, "port") == 0) info.port = o->val;
    if (std::strcmp(o->keyword, "dbname") == 0) info.dbname = o->val;
    if (std::strcmp(o->keyword, "password") == 0) info.password = o->val;
  }
  PQconninfoFree(options);
  return info;
}

std::string Describe(const ConnInfo& info) {
  return absl::StrCat(info.user, info.user.empty() ? "" : "@",
                      info.host.empty() ? "localhost" : info.host, info.port.empty() ? "" : ":",
                      info.port, "/", info.dbname);
}

std::string Scrub(std::string text, const std::string& password) {
  if (!password.empty()) absl::StrReplaceAll({{password, "********"}}, &text);
  return text;
}

// libpq's messages end in newlines and may span lines: one line for a Status.
std::string OneLine(std::string text) {
  absl::StripTrailingAsciiWhitespace(&text);
  absl::StrReplaceAll({{"\n", "; "}, {"\t", ""}}, &text);
  return text;
}

std::string Field(const PGresult* result, int row, int column) {
  return std::string(PQgetvalue(result, row, column),
                     static_cast<size_t>(PQgetlength(result, row, column)));
}

template <typename Int>
Int IntField(const PGresult* result, int row, int column) {
  Int value = 0;
  (void)absl::SimpleAtoi(Field(result, row, column), &value);  // BIGINT/INTEGER: always digits
  return value;
}

PlanRecord ReadRecord(const PGresult* result, int row) {
  PlanRecord r;
  r.job_id = Field(result, row, 0);
  r.job_key = Field(result, row, 1);
  r.request_hash = Field(result, row, 2);
  r.request_json = Field(result, row, 3);
  r.plan_json = Field(result, row, 4);
  r.algorithm = Field(result, row, 5);
  r.model_version = Field(result, row, 6);
  r.status = Field(result, row, 7);
  r.error_code = IntField<int32_t>(result, row, 8);
  r.error_message = Field(result, row, 9);
  r.owner = Field(result, row, 10);
  r.submitted_unix_ms = IntField<int64_t>(result, row, 11);
  r.started_unix_ms = IntField<int64_t>(result, row, 12);
  r.finished_unix_ms = IntField<int64_t>(result, row, 13);
  r.checksum = Field(result, row, 14);
  r.submitted_by = Field(result, row, 15);
  return r;
}

}  // namespace

// The connection during one call: runs statements and turns libpq's errors into Status.
class PostgresPlanStore::Connection {
 public:
  Connection(const PostgresPlanStore& store, PGconn* conn) : store_(store), conn_(conn) {}

  absl::StatusOr<ResultPtr> Exec(const std::string& what, const std::string& sql,
                                 const std::vector<std::string>& params = {}) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const std::string& p : params) values.push_back(p.c_str());
    ResultPtr result(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    return Error(what, result.get());
  }

  // Runs `sql` and expects it to change exactly one row (NOT_FOUND naming `job_id` otherwise).
  absl::Status ExecOne(const std::string& what, const std::string& sql,
                       const std::vector<std::string>& params, const std::string& job_id) {
    absl::StatusOr<ResultPtr> result = Exec(what, sql, params);
    if (!result.ok()) return result.status();
    if (std::strcmp(PQcmdTuples(result->get()), "0") == 0) {
      return absl::NotFoundError(store_internal::StoreMessage(
          kBackend, store_.description_, what, absl::StrCat("no record with job_id ", job_id)));
    }
    return absl::OkStatus();
  }

  absl::Status Error(const std::string& what, const PGresult* result) const {
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const char* primary = result ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
    const char* detail = result ? PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL) : nullptr;
    std::string text = primary != nullptr ? primary : OneLine(PQerrorMessage(conn_));
    if (detail != nullptr) absl::StrAppend(&text, " (", detail, ")");
    text = Scrub(std::move(text), store_.password_);
    const std::string sqlstate = state != nullptr ? state : "";
    if (sqlstate == "23505") {  // unique_violation
      const char* constraint = PQresultErrorField(result, PG_DIAG_CONSTRAINT_NAME);
      const std::string name = constraint != nullptr ? constraint : "";
      const char* which = name == "plans_job_key" ? "job_key is held by another record: "
                          : name == "plans_pkey"  ? "job_id already exists: "
                                                  : "";
      return absl::AlreadyExistsError(store_internal::StoreMessage(
          kBackend, store_.description_, what, absl::StrCat(which, text)));
    }
    std::string message = store_internal::StoreMessage(kBackend, store_.description_, what, text);
    // Class 22, data exception: the record, not the database, is at fault.
    if (sqlstate.rfind("22", 0) == 0) return absl::InvalidArgumentError(message);
    // data_corrupted, index_corrupted: what was asked for is lost, not unreachable.
    if (sqlstate == "XX001" || sqlstate == "XX002") return absl::DataLossError(message);
    return absl::UnavailableError(message);
  }

  // Runs `body` between BEGIN and COMMIT; rolls back when it fails.
  absl::Status Transaction(const std::string& what, const std::function<absl::Status()>& body) {
    if (auto begin = Exec(what, "BEGIN"); !begin.ok()) return begin.status();
    absl::Status status = body();
    if (status.ok()) status = Exec(what, "COMMIT").status();
    if (!status.ok() && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      ResultPtr ignored(PQexec(conn_, "ROLLBACK"));
    }
    return status;
  }

 private:
  const PostgresPlanStore& store_;
  PGconn* conn_;
};

PostgresPlanStore::PostgresPlanStore(std::string description, std::string password, PGconn* conn)
    : description_(std::move(description)), password_(std::move(password)), conn_(conn) {}

PostgresPlanStore::~PostgresPlanStore() { PQfinish(conn_); }

absl::StatusOr<std::unique_ptr<PostgresPlanStore>> PostgresPlanStore::Open(const std::string& uri) {
  std::string parse_error;
  std::optional<ConnInfo> info = ParseUri(uri, &parse_error);
  if (!info) {
    // libpq may quote the part it could not parse; the password is not known yet, so the whole
    // user-info part of the URI is scrubbed.
    std::string scrubbed = OneLine(parse_error);
    const size_t scheme = uri.find("://");
    const size_t at = uri.rfind('@');
    if (scheme != std::string::npos && at != std::string::npos && at > scheme + 3) {
      const std::string user_info = uri.substr(scheme + 3, at - scheme - 3);
      scrubbed = Scrub(std::move(scrubbed), user_info);
      if (const size_t colon = user_info.find(':'); colon != std::string::npos) {
        scrubbed = Scrub(std::move(scrubbed), user_info.substr(colon + 1));
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("store: malformed PostgreSQL connection URI: ", scrubbed));
  }
  const std::string description = Describe(*info);
  // Defaults first: the URI's own settings, expanded from dbname after them, take precedence.
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "shardplan", uri.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::UnavailableError(
        store_internal::StoreMessage(kBackend, description, "connect", "out of memory"));
  }
  std::unique_ptr<PostgresPlanStore> store(
      new PostgresPlanStore(description, info->password, conn));
  // libpq prints notices ("relation already exists, skipping") to stderr by default.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (PQstatus(conn) != CONNECTION_OK) {
    return absl::UnavailableError(store_internal::StoreMessage(
        kBackend, description, "connect", Scrub(OneLine(PQerrorMessage(conn)), info->password)));
  }
  absl::Status schema = store->WithConnection([&](Connection& c) {
    return c.Transaction("create schema", [&]() -> absl::Status {
      if (auto lock =
              c.Exec("create schema", "SELECT pg_advisory_xact_lock($1::BIGINT)", {kSchemaLockKey});
          !lock.ok()) {
        return lock.status();
      }
      // Several statements in one call: only libpq's simple protocol (PQexec) takes them.
      ResultPtr created(PQexec(conn, kCreateSchema));
      if (!created || PQresultStatus(created.get()) != PGRES_COMMAND_OK) {
        return c.Error("create schema", created.get());
      }
      absl::StatusOr<ResultPtr> found =
          c.Exec("read schema version", "SELECT max(version) FROM plan_store_schema");
      if (!found.ok()) return found.status();
      const std::string found_version = Field(found->get(), 0, 0);
      if (found_version == "1") {
        ResultPtr migrated(PQexec(conn, kMigrateToV2));
        if (!migrated || PQresultStatus(migrated.get()) != PGRES_COMMAND_OK) {
          return c.Error("migrate schema to version 2", migrated.get());
        }
      }
      if (found_version == "1" || found_version == "2") {
        ResultPtr migrated(PQexec(conn, kMigrateToV3));
        if (!migrated || PQresultStatus(migrated.get()) != PGRES_COMMAND_OK) {
          return c.Error("migrate schema to version 3", migrated.get());
        }
      }
      for (const char* index :
           {store_internal::kCreatePrunableIndex, store_internal::kCreateBytesIndex}) {
        if (auto created_index = c.Exec("create schema", index); !created_index.ok()) {
          return created_index.status();
        }
      }
      return c
          .Exec("create schema",
                "INSERT INTO plan_store_schema (version) "
                "SELECT $1::INTEGER WHERE NOT EXISTS (SELECT 1 FROM plan_store_schema)",
                {absl::StrCat(store_internal::kSchemaVersion)})
          .status();
    });
  });
  if (!schema.ok()) return schema;
  absl::Status version = store->WithConnection([&](Connection& c) -> absl::Status {
    absl::StatusOr<ResultPtr> result =
        c.Exec("read schema version", "SELECT max(version) FROM plan_store_schema");
    if (!result.ok()) return result.status();
    const std::string found = Field(result->get(), 0, 0);
    if (found != absl::StrCat(store_internal::kSchemaVersion)) {
      return absl::UnavailableError(store_internal::StoreMessage(
          kBackend, description, "open",
          absl::StrCat("schema version ", found, " is not the one this build knows (",
                       store_internal::kSchemaVersion, ")")));
    }
    return absl::OkStatus();
  });
  if (!version.ok()) return version;
  return store;
}

absl::Status PostgresPlanStore::WithConnection(
    const std::function<absl::Status(Connection&)>& body) {
  std::lock_guard lock(mu_);
  Connection connection(*this, conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {  // lost on an earlier call: one reconnect, no retry
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
      return absl::UnavailableError(store_internal::StoreMessage(
          kBackend, description_, "reconnect", Scrub(OneLine(PQerrorMessage(conn_)), password_)));
    }
    return body(connection);
  }
  absl::Status status = body(connection);
  if (status.ok() || PQstatus(conn_) != CONNECTION_BAD) return status;
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat(status.message(), "; reconnecting failed: ",
                                               Scrub(OneLine(PQerrorMessage(conn_)), password_)));
  }
  return body(connection);
}

absl::StatusOr<std::vector<PlanRecord>> PostgresPlanStore::QueryRecords(
    const std::string& what, const std::string& sql, const std::vector<std::string>& params) {
  std::vector<PlanRecord> records;
  absl::Status status = WithConnection([&](Connection& c) -> absl::Status {
    absl::StatusOr<ResultPtr> result = c.Exec(what, sql, params);
    if (!result.ok()) return result.status();
    records.clear();
    const int rows = PQntuples(result->get());
    if (rows > 0 && PQnfields(result->get()) != kColumnCount) {
      return absl::InternalError(
          store_internal::StoreMessage(kBackend, description_, what, "unexpected column count"));
    }
    for (int row = 0; row < rows; ++row) records.push_back(ReadRecord(result->get(), row));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return records;
}

absl::StatusOr<std::optional<PlanRecord>> PostgresPlanStore::QueryOne(
    const std::string& what, const std::string& sql, const std::vector<std::string>& params) {
  absl::StatusOr<std::vector<PlanRecord>> records = QueryRecords(what, sql, params);
  if (!records.ok()) return records.status();
  if (records->empty()) return std::nullopt;
  if (absl::Status s =
          store_internal::VerifyChecksum(records->front(), kBackend, description_, what);
      !s.ok()) {
    return s;
  }
  return std::move(records->front());
}

absl::Status PostgresPlanStore::Insert(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  const std::vector<std::string> params = RecordParams(record);
  return WithConnection(
      [&](Connection& c) { return c.Exec("insert", InsertSql(), params).status(); });
}

absl::Status PostgresPlanStore::Update(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  // Every field but job_id, job_key and submitted_unix_ms; PostgreSQL wants each $n used.
  std::vector<std::string> params = RecordParams(record);
  params.erase(params.begin() + 11);  // submitted_unix_ms
  params.erase(params.begin() + 1);   // job_key
  static const char kSql[] =
      "UPDATE plans SET request_hash = $2, request_json = $3, plan_json = $4, algorithm = $5, "
      "model_version = $6, status = $7, error_code = $8, error_message = $9, owner = $10, "
      "started_unix_ms = $11, finished_unix_ms = $12, record_bytes = $13, checksum = $14, "
      "submitted_by = $15 WHERE job_id = $1";
  return WithConnection(
      [&](Connection& c) { return c.ExecOne("update", kSql, params, record.job_id); });
}

absl::Status PostgresPlanStore::ReplaceKeyed(const PlanRecord& record) {
  if (absl::Status s = store_internal::ValidateRecord(record); !s.ok()) return s;
  if (record.job_key.empty()) {
    return absl::InvalidArgumentError("plan store: ReplaceKeyed needs a record with a job_key");
  }
  const std::vector<std::string> params = RecordParams(record);
  return WithConnection([&](Connection& c) {
    return c.Transaction("replace keyed", [&]() -> absl::Status {
      if (auto released =
              c.Exec("replace keyed: release the key",
                     "UPDATE plans SET job_key = '' WHERE job_key = $1", {record.job_key});
          !released.ok()) {
        return released.status();
      }
      return c.Exec("replace keyed: insert", InsertSql(), params).status();
    });
  });
}

absl::StatusOr<std::optional<PlanRecord>> PostgresPlanStore::GetByJobId(const std::string& job_id) {
  return QueryOne(absl::StrCat("get by job_id ", PrintableExcerpt(job_id)),
                  Select("WHERE job_id = $1"), {job_id});
}

absl::StatusOr<std::optional<PlanRecord>> PostgresPlanStore::GetByJobKey(
    const std::string& job_key) {
  return QueryOne(absl::StrCat("get by job_key \"", PrintableExcerpt(job_key, 256), "\""),
                  Select("WHERE job_key = $1 AND job_key <> ''"), {job_key});
}

absl::StatusOr<std::optional<PlanRecord>> PostgresPlanStore::FindSucceeded(
    const std::string& request_hash) {
  return QueryOne(absl::StrCat("find succeeded for request hash ", PrintableExcerpt(request_hash)),
                  Select("WHERE request_hash = $1 AND status = 'SUCCEEDED' "
                         "ORDER BY finished_unix_ms DESC, seq DESC LIMIT 1"),
                  {request_hash});
}

absl::StatusOr<std::vector<PlanRecord>> PostgresPlanStore::ListUnfinished(
    const std::string& owner) {
  absl::StatusOr<std::vector<PlanRecord>> records =
      QueryRecords("list unfinished",
                   Select("WHERE owner = $1 AND status IN ('QUEUED', 'RUNNING') "
                          "ORDER BY submitted_unix_ms, seq"),
                   {owner});
  if (records.ok()) {
    for (PlanRecord& record : *records) store_internal::MarkDamage(record);
  }
  return records;
}

absl::Status PostgresPlanStore::Delete(const std::string& job_id) {
  return WithConnection([&](Connection& c) {
    return c.ExecOne("delete", "DELETE FROM plans WHERE job_id = $1", {job_id}, job_id);
  });
}

absl::StatusOr<int64_t> PostgresPlanStore::PruneFinished(int64_t finished_before_unix_ms,
                                                         int64_t max_records) {
  if (absl::Status s = store_internal::ValidatePruneBatch(max_records); !s.ok()) return s;
  int64_t deleted = 0;
  absl::Status status = WithConnection([&](Connection& c) -> absl::Status {
    absl::StatusOr<ResultPtr> result =
        c.Exec("prune",
               absl::StrCat("DELETE FROM plans WHERE job_id IN (SELECT job_id FROM plans WHERE ",
                            kPrunableCondition,
                            " AND finished_unix_ms < $1::BIGINT ORDER BY finished_unix_ms "
                            "LIMIT $2::BIGINT)"),
               {absl::StrCat(finished_before_unix_ms), absl::StrCat(max_records)});
    if (!result.ok()) return result.status();
    (void)absl::SimpleAtoi(PQcmdTuples(result->get()), &deleted);  // DELETE reports a count
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return deleted;
}

absl::StatusOr<int64_t> PostgresPlanStore::Count() {
  int64_t count = 0;
  absl::Status status = WithConnection([&](Connection& c) -> absl::Status {
    absl::StatusOr<ResultPtr> result = c.Exec("count", "SELECT COUNT(*) FROM plans");
    if (!result.ok()) return result.status();
    count = IntField<int64_t>(result->get(), 0, 0);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return count;
}

absl::StatusOr<StoredBytes> PostgresPlanStore::Bytes() {
  StoredBytes bytes;
  absl::Status status = WithConnection([&](Connection& c) -> absl::Status {
    absl::StatusOr<ResultPtr> result = c.Exec("sum bytes", store_internal::kBytesQuery);
    if (!result.ok()) return result.status();
    bytes.total = IntField<int64_t>(result->get(), 0, 0);
    bytes.kept = IntField<int64_t>(result->get(), 0, 1);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return bytes;
}

absl::StatusOr<int64_t> PostgresPlanStore::PruneForSize(int64_t max_bytes, int64_t max_records) {
  if (absl::Status s = store_internal::ValidateSizeBound(max_bytes, max_records); !s.ok()) {
    return s;
  }
  int64_t deleted = 0;
  absl::Status status = WithConnection([&](Connection& c) {
    deleted = 0;
    return c.Transaction("prune for size", [&]() -> absl::Status {
      if (auto lock =
              c.Exec("prune for size", "SELECT pg_advisory_xact_lock($1::BIGINT)", {kSizeLockKey});
          !lock.ok()) {
        return lock.status();
      }
      absl::StatusOr<ResultPtr> sums = c.Exec("prune for size", store_internal::kBytesQuery);
      if (!sums.ok()) return sums.status();
      const int64_t total = IntField<int64_t>(sums->get(), 0, 0);
      if (total <= max_bytes) return absl::OkStatus();
      absl::StatusOr<ResultPtr> oldest =
          c.Exec("prune for size: find the oldest",
                 absl::StrCat("SELECT job_id, record_bytes FROM plans WHERE ", kPrunableCondition,
                              " ORDER BY finished_unix_ms, seq LIMIT $1::BIGINT"),
                 {absl::StrCat(max_records)});
      if (!oldest.ok()) return oldest.status();
      std::vector<int64_t> sizes;
      for (int row = 0; row < PQntuples(oldest->get()); ++row) {
        sizes.push_back(IntField<int64_t>(oldest->get(), row, 1));
      }
      const size_t n = store_internal::RecordsToFree(sizes, total - max_bytes);
      for (size_t row = 0; row < n; ++row) {
        absl::StatusOr<ResultPtr> removed =
            c.Exec("prune for size: delete", "DELETE FROM plans WHERE job_id = $1",
                   {Field(oldest->get(), static_cast<int>(row), 0)});
        if (!removed.ok()) return removed.status();
        int64_t count = 0;
        (void)absl::SimpleAtoi(PQcmdTuples(removed->get()), &count);
        deleted += count;
      }
      return absl::OkStatus();
    });
  });
  if (!status.ok()) return status;
  return deleted;
}

}  // namespace shardplan
