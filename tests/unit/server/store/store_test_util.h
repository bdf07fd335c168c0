#ifndef SHARDPLAN_TESTS_UNIT_SERVER_STORE_STORE_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_SERVER_STORE_STORE_TEST_UTIL_H_

// Records, temporary directories and backends shared by the plan-store suites.

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "server/store/plan_store.h"
#include "tests/integration/support/postgres_server.h"

namespace shardplan::store_testing {

// 32 lowercase hex characters that encode `n`.
std::string JobId(int n);

// A QUEUED record with job id JobId(n), owner "replica-a", submitted at 1000 + n.
PlanRecord MakeRecord(int n);

// `record` SUCCEEDED at `finished_unix_ms` with a plan.
PlanRecord Succeeded(PlanRecord record, int64_t finished_unix_ms,
                     const std::string& plan_json = R"({"tables":[]})");

// Every field, for EXPECT_EQ (gtest prints tuples).
inline auto Fields(const PlanRecord& r) {
  return std::tie(r.job_id, r.job_key, r.request_hash, r.request_json, r.plan_json, r.algorithm,
                  r.model_version, r.status, r.error_code, r.error_message, r.owner,
                  r.submitted_unix_ms, r.started_unix_ms, r.finished_unix_ms, r.submitted_by);
}

// Writes `per_page` pseudo-random bytes (from `seed`) at pseudo-random places of every 4 KiB page
// of the file at `path` but the first (the header and schema), as an attack on the file would.
void ScribbleOverPages(const std::string& path, int per_page, uint32_t seed);

// After a migration from schema version 1 (`old`, JobId(1), written before it): `store` serves
// `old` unverified (checksum ""), counts its bytes, and writes new records with a checksum.
void ExpectMigrated(PlanStore& store, const PlanRecord& old);

// After a migration from schema version 2 (`old`, JobId(1), written with a checksum before it):
// `store` serves `old` verified (its checksum still matches) with no submitted_by, and keeps
// submitted_by for new records.
void ExpectMigratedFromVersion2(PlanStore& store, const PlanRecord& old);

// A fresh directory under $TMPDIR (or /tmp), removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Where one test keeps its store: a file in a temporary directory or a fresh PostgreSQL
// database on a server shared by the test process. spec() is the `store` setting.
class StoreLocation {
 public:
  // `backend`: "sqlite" or "postgresql".
  static absl::StatusOr<std::unique_ptr<StoreLocation>> Create(const std::string& backend);
  const std::string& spec() const { return spec_; }
  // The PostgreSQL server (nullptr for sqlite).
  testing::PostgresServer* postgres() const;
  // A new store object on this location (OpenPlanStore(spec())).
  absl::StatusOr<std::unique_ptr<PlanStore>> Open() const;
  // Runs `sql` on the database behind the store's back (sqlite3 / the superuser), e.g. to damage
  // a record as an editor of the file would; the first column of the first row ("" for none).
  absl::StatusOr<std::string> Execute(const std::string& sql) const;

 private:
  StoreLocation() = default;
  std::unique_ptr<TempDir> dir_;
  std::string spec_;
  std::string database_;  // PostgreSQL's database name
  bool postgres_ = false;
};

}  // namespace shardplan::store_testing

#endif  // SHARDPLAN_TESTS_UNIT_SERVER_STORE_STORE_TEST_UTIL_H_
