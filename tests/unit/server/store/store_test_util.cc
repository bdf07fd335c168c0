#include "tests/unit/server/store/store_test_util.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace shardplan::store_testing {

std::string JobId(int n) {
  char id[33];
  std::snprintf(id, sizeof(id), "%032x", n);
  return id;
}

PlanRecord MakeRecord(int n) {
  PlanRecord r;
  r.job_id = JobId(n);
  r.request_hash = absl::StrCat("hash-", n);
  r.request_json = absl::StrCat(R"({"task":{"tables":[{"name":"t)", n, R"("}]}})");
  r.algorithm = "neuroshard";
  r.model_version = "default@1";
  r.status = "QUEUED";
  r.owner = "replica-a";
  r.submitted_unix_ms = 1000 + n;
  return r;
}

PlanRecord Succeeded(PlanRecord record, int64_t finished_unix_ms, const std::string& plan_json) {
  record.status = "SUCCEEDED";
  record.plan_json = plan_json;
  record.started_unix_ms = finished_unix_ms - 1;
  record.finished_unix_ms = finished_unix_ms;
  return record;
}

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/shardplan-store-XXXXXX");
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  // A test may have left it read-only.
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
  std::filesystem::remove_all(path_, ignored);
}

namespace {

// One server per test process, started on first use and stopped at exit.
absl::StatusOr<testing::PostgresServer*> SharedPostgres() {
  static std::mutex mu;
  static std::unique_ptr<testing::PostgresServer>* server =
      new std::unique_ptr<testing::PostgresServer>();
  std::lock_guard lock(mu);
  if (*server == nullptr) {
    absl::StatusOr<std::unique_ptr<testing::PostgresServer>> started =
        testing::PostgresServer::Start();
    if (!started.ok()) return started.status();
    *server = std::move(*started);
    std::atexit([] { server->reset(); });
  }
  return server->get();
}

}  // namespace

absl::StatusOr<std::unique_ptr<StoreLocation>> StoreLocation::Create(const std::string& backend) {
  std::unique_ptr<StoreLocation> location(new StoreLocation());
  if (backend == "sqlite") {
    location->dir_ = std::make_unique<TempDir>();
    if (location->dir_->path().empty()) return absl::InternalError("mkdtemp failed");
    location->spec_ = absl::StrCat("sqlite:", location->dir_->path(), "/plans.db");
    return location;
  }
  absl::StatusOr<testing::PostgresServer*> server = SharedPostgres();
  if (!server.ok()) return server.status();
  static std::atomic<int> databases{0};
  location->database_ = absl::StrCat("plans_", getpid(), "_", databases.fetch_add(1));
  absl::StatusOr<std::string> uri = (*server)->CreateDatabase(location->database_);
  if (!uri.ok()) return uri.status();
  location->spec_ = *uri;
  location->postgres_ = true;
  return location;
}

testing::PostgresServer* StoreLocation::postgres() const {
  if (!postgres_) return nullptr;
  absl::StatusOr<testing::PostgresServer*> server = SharedPostgres();
  return server.ok() ? *server : nullptr;
}

absl::StatusOr<std::unique_ptr<PlanStore>> StoreLocation::Open() const {
  return OpenPlanStore(spec_);
}

absl::StatusOr<std::string> StoreLocation::Execute(const std::string& sql) const {
  if (postgres_) {
    testing::PostgresServer* server = postgres();
    if (server == nullptr) return absl::InternalError("no PostgreSQL server");
    absl::StatusOr<std::vector<std::vector<std::string>>> rows = server->Query(database_, sql);
    if (!rows.ok()) return rows.status();
    return rows->empty() || rows->front().empty() ? "" : rows->front().front();
  }
  sqlite3* db = nullptr;
  const std::string path = spec_.substr(std::string("sqlite:").size());
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return absl::InternalError(absl::StrCat("cannot open ", path));
  }
  std::string first;
  bool seen = false;
  std::pair<std::string*, bool*> state(&first, &seen);
  char* error = nullptr;
  const int code = sqlite3_exec(
      db, sql.c_str(),
      [](void* arg, int columns, char** values, char**) {
        auto* state = static_cast<std::pair<std::string*, bool*>*>(arg);
        if (!*state->second && columns > 0) {
          *state->first = values[0] != nullptr ? values[0] : "";
          *state->second = true;
        }
        return 0;
      },
      &state, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close_v2(db);
  if (code != SQLITE_OK) return absl::InternalError(absl::StrCat(sql, ": ", message));
  return first;
}

void ExpectMigrated(PlanStore& store, const PlanRecord& old) {
  absl::StatusOr<std::optional<PlanRecord>> read = store.GetByJobId(JobId(1));
  ASSERT_TRUE(read.ok() && read->has_value()) << read.status();
  EXPECT_EQ(Fields(**read), Fields(old));
  EXPECT_EQ((*read)->checksum, "");  // unverified
  EXPECT_EQ(store.Bytes().value().total, RecordBytes(old));
  ASSERT_TRUE(store.Insert(MakeRecord(2)).ok());
  EXPECT_EQ(store.GetByJobId(JobId(2)).value()->checksum, RecordChecksum(MakeRecord(2)));
}

void ExpectMigratedFromVersion2(PlanStore& store, const PlanRecord& old) {
  absl::StatusOr<std::optional<PlanRecord>> read = store.GetByJobId(JobId(1));
  ASSERT_TRUE(read.ok() && read->has_value()) << read.status();
  EXPECT_EQ(Fields(**read), Fields(old));
  EXPECT_EQ((*read)->submitted_by, "");
  EXPECT_EQ((*read)->checksum, RecordChecksum(old));  // verified, as before the migration
  PlanRecord owned = MakeRecord(2);
  owned.submitted_by = "token:trainer-a";
  ASSERT_TRUE(store.Insert(owned).ok());
  EXPECT_EQ(store.GetByJobId(JobId(2)).value()->submitted_by, "token:trainer-a");
}

void ScribbleOverPages(const std::string& path, int per_page, uint32_t seed) {
  const auto size = static_cast<std::streamoff>(std::filesystem::file_size(path));
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  uint32_t state = seed;
  for (std::streamoff page = 4096; page + 4096 <= size; page += 4096) {
    for (int i = 0; i < per_page; ++i) {
      state = state * 1103515245 + 12345;
      file.seekp(page + static_cast<std::streamoff>((state >> 8) % 4096));
      file.put(static_cast<char>(state >> 24));
    }
  }
}

}  // namespace shardplan::store_testing
