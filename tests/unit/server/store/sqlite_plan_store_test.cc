// What only the SQLite backend does: read-only files and directories, a full disk, garbage files,
// the schema and the durability settings it leaves in the file; and OpenPlanStore's spellings.

#include "server/store/sqlite_plan_store.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/store/store_test_util.h"

namespace shardplan::store_testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Permission bits do not stop root: as root, the test runs as `nobody` while this lives.
class AsUnprivilegedUser {
 public:
  AsUnprivilegedUser() {
    if (geteuid() != 0) return;
    switched_ = setegid(65534) == 0 && seteuid(65534) == 0;
  }
  ~AsUnprivilegedUser() {
    if (!switched_) return;
    (void)!seteuid(0);
    (void)!setegid(0);
  }
  bool ok() const { return geteuid() != 0; }

 private:
  bool switched_ = false;
};

// Runs `sql` on the file with a separate connection: `column` of every row, joined by '|';
// "<error>" when it fails.
std::string QueryFile(const std::string& path, const std::string& sql, int column = 0) {
  sqlite3* db = nullptr;
  std::string value = "<error>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK) {
      std::string rows;
      int code;
      while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
        absl::StrAppend(&rows, rows.empty() ? "" : "|", text != nullptr ? text : "");
      }
      if (code == SQLITE_DONE) value = rows;
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close_v2(db);
  return value;
}

class SqlitePlanStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  std::string path() const { return dir_.path() + "/plans.db"; }

  // chmods `file` and the directory, then gives up root until the test ends.
  void ChmodAndDropRoot(const std::string& file, mode_t file_mode, mode_t dir_mode) {
    ASSERT_EQ(chmod(file.c_str(), file_mode), 0);
    ASSERT_EQ(chmod(dir_.path().c_str(), dir_mode), 0);
    unprivileged_.emplace();
    ASSERT_TRUE(unprivileged_->ok());
  }

  TempDir dir_;
  std::optional<AsUnprivilegedUser> unprivileged_;  // after dir_: root is back to remove it
};

TEST_F(SqlitePlanStoreTest, CreatesTheFileInWalModeWithSchemaVersionAndIndexes) {
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_FALSE((*store)->read_only());
    EXPECT_EQ((*store)->path(), path());
  }
  EXPECT_EQ(QueryFile(path(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(QueryFile(path(), "PRAGMA user_version"), "3");
  EXPECT_EQ(QueryFile(path(),
                      "SELECT group_concat(name, ',') FROM (SELECT name FROM "
                      "sqlite_master WHERE type = 'index' AND name LIKE 'plans_%' "
                      "ORDER BY name)"),
            "plans_bytes,plans_job_key,plans_prunable,plans_succeeded,plans_unfinished");
  // The lookups use them (column 3 of EXPLAIN QUERY PLAN: the step's description).
  EXPECT_THAT(QueryFile(path(),
                        "EXPLAIN QUERY PLAN SELECT * FROM plans WHERE request_hash = 'h' AND "
                        "status = 'SUCCEEDED' ORDER BY finished_unix_ms DESC LIMIT 1",
                        3),
              HasSubstr("INDEX plans_succeeded"));
  EXPECT_THAT(QueryFile(path(),
                        "EXPLAIN QUERY PLAN SELECT * FROM plans WHERE owner = 'a' AND status IN "
                        "('QUEUED', 'RUNNING') ORDER BY submitted_unix_ms",
                        3),
              HasSubstr("INDEX plans_unfinished"));
  EXPECT_THAT(QueryFile(path(),
                        "EXPLAIN QUERY PLAN SELECT rowid FROM plans WHERE job_key = '' AND status "
                        "IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND finished_unix_ms < 5 ORDER BY "
                        "finished_unix_ms LIMIT 10",
                        3),
              HasSubstr("INDEX plans_prunable"));
}

TEST_F(SqlitePlanStoreTest, AFileFromBeforeRetentionGetsThePrunableIndexAtOpen) {
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(Succeeded(MakeRecord(1), 10)).ok());
  }
  // What a store written before retention existed looks like: schema version 1, no such index.
  ASSERT_EQ(QueryFile(path(), "DROP INDEX plans_prunable"), "");
  ASSERT_EQ(QueryFile(path(), "SELECT count(*) FROM sqlite_master WHERE name = 'plans_prunable'"),
            "0");
  auto store = SqlitePlanStore::Open(path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path(), "SELECT count(*) FROM sqlite_master WHERE name = 'plans_prunable'"),
            "1");
  EXPECT_EQ((*store)->PruneFinished(11, 10).value(), 1);
  EXPECT_EQ((*store)->Count().value(), 0);
}

TEST_F(SqlitePlanStoreTest, AFileOfANewerSchemaIsRefused) {
  ASSERT_TRUE(SqlitePlanStore::Open(path()).ok());
  ASSERT_EQ(QueryFile(path(), "PRAGMA user_version = 7"), "");
  auto store = SqlitePlanStore::Open(path());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr(path()), HasSubstr("schema version 7")));
}

TEST_F(SqlitePlanStoreTest, AFileOfSchemaVersion1IsMigratedAndItsRecordsServedUnverified) {
  const PlanRecord old = Succeeded(MakeRecord(1), 2000, R"({"tables":[1]})");
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(old).ok());
  }
  // What a version-1 file looks like: no checksum, no record_bytes, no submitted_by.
  for (const char* sql :
       {"DROP INDEX plans_bytes", "ALTER TABLE plans DROP COLUMN checksum",
        "ALTER TABLE plans DROP COLUMN record_bytes", "ALTER TABLE plans DROP COLUMN submitted_by",
        "PRAGMA user_version = 1"}) {
    ASSERT_EQ(QueryFile(path(), sql), "") << sql;
  }
  auto store = SqlitePlanStore::Open(path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path(), "PRAGMA user_version"), "3");
  ExpectMigrated(**store, old);
  EXPECT_TRUE((*store)->QuickCheck().ok());
}

TEST_F(SqlitePlanStoreTest, AFileOfSchemaVersion2IsMigratedAndItsRecordsStillVerifyWithNoOwner) {
  const PlanRecord old = Succeeded(MakeRecord(1), 2000, R"({"tables":[1]})");
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(old).ok());
  }
  // What a version-2 file looks like: checksums, no submitted_by.
  for (const char* sql :
       {"ALTER TABLE plans DROP COLUMN submitted_by", "PRAGMA user_version = 2"}) {
    ASSERT_EQ(QueryFile(path(), sql), "") << sql;
  }
  auto store = SqlitePlanStore::Open(path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path(), "PRAGMA user_version"), "3");
  ExpectMigratedFromVersion2(**store, old);
}

TEST_F(SqlitePlanStoreTest, AnEmptyFileIsRefusedAsWipedNotStartedEmpty) {
  { std::ofstream empty(path()); }
  auto store = SqlitePlanStore::Open(path());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr(path()), HasSubstr("empty (0 bytes)"), HasSubstr("backup")));
  EXPECT_EQ(std::filesystem::file_size(path()), 0u);  // left as it was
}

TEST_F(SqlitePlanStoreTest, DamagedPagesFailTheCheckAndReadsAreDataLossNeverAnotherRecord) {
  std::vector<PlanRecord> records;
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE((*store)->QuickCheck().ok());
    for (int n = 0; n < 400; ++n) {
      records.push_back(Succeeded(MakeRecord(n), 2000 + n, std::string(300, 'a' + n % 26)));
      ASSERT_TRUE((*store)->Insert(records.back()).ok());
    }
  }
  ASSERT_EQ(QueryFile(path(), "PRAGMA wal_checkpoint(TRUNCATE)"), "0");
  // Random bytes over every page but the first (the header), as the attack wrote them.
  ScribbleOverPages(path(), 8, 12345);
  auto store = SqlitePlanStore::Open(path());
  ASSERT_TRUE(store.ok()) << store.status();
  const absl::Status checked = (*store)->QuickCheck();
  EXPECT_EQ(checked.code(), absl::StatusCode::kDataLoss) << checked;
  int damaged = 0;
  for (const PlanRecord& record : records) {
    absl::StatusOr<std::optional<PlanRecord>> read = (*store)->GetByJobId(record.job_id);
    if (read.ok() && read->has_value()) {
      EXPECT_EQ(Fields(**read), Fields(record));  // served only when it is the record written
      continue;
    }
    ++damaged;
    if (!read.ok()) {
      EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << read.status();
      for (char c : read.status().message()) {  // escaped: nothing of the file's raw bytes
        EXPECT_TRUE(c >= 0x20 && c < 0x7f) << read.status();
      }
    }
  }
  EXPECT_GT(damaged, 0);
}

TEST_F(SqlitePlanStoreTest, GarbageFileIsUnavailableNotADatabase) {
  {
    std::ofstream garbage(path(), std::ios::binary);
    for (int i = 0; i < 4096; ++i) garbage.put(static_cast<char>((i * 131) % 251));
  }
  auto store = SqlitePlanStore::Open(path());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr("plan store (sqlite " + path() + ")"), HasSubstr("not a database")));
}

TEST_F(SqlitePlanStoreTest, MissingDirectoryIsUnavailable) {
  auto store = SqlitePlanStore::Open(dir_.path() + "/no/such/dir/plans.db");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("does not exist"));
}

// Chosen behaviour: a read-only file opens, reads work, writes fail UNAVAILABLE; the server
// keeps answering with the plans it has.
TEST_F(SqlitePlanStoreTest, ReadOnlyFileServesReadsAndRefusesWrites) {
  PlanRecord record = Succeeded(MakeRecord(1), 5000);
  {
    auto store = SqlitePlanStore::Open(path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(record).ok());
  }
  // The directory stays writable: the -shm file may be created beside the file.
  ASSERT_NO_FATAL_FAILURE(ChmodAndDropRoot(path(), 0444, 0777));

  auto store = SqlitePlanStore::Open(path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->read_only());
  EXPECT_EQ((*store)->GetByJobId(record.job_id).value()->plan_json, record.plan_json);
  EXPECT_EQ((*store)->FindSucceeded(record.request_hash).value()->job_id, record.job_id);
  EXPECT_EQ((*store)->Count().value(), 1);

  for (absl::Status status : {(*store)->Insert(MakeRecord(2)), (*store)->Update(record),
                              (*store)->Delete(record.job_id)}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
    EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr(path()), HasSubstr("readonly")));
  }
  PlanRecord keyed = MakeRecord(3);
  keyed.job_key = "job-a";
  EXPECT_EQ((*store)->ReplaceKeyed(keyed).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->Count().value(), 1);
}

TEST_F(SqlitePlanStoreTest, ReadOnlyFileWithoutSchemaIsUnavailable) {
  // An SQLite file, but not a plan store (a file of 0 bytes is refused as wiped, below).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE other (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_NO_FATAL_FAILURE(ChmodAndDropRoot(path(), 0444, 0777));
  auto store = SqlitePlanStore::Open(path());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr(path()), HasSubstr("read-only")));
}

TEST_F(SqlitePlanStoreTest, ReadOnlyDirectoryIsUnavailableNamingTheDirectory) {
  const std::string existing = dir_.path() + "/existing.db";
  ASSERT_TRUE(SqlitePlanStore::Open(existing).ok());
  ASSERT_NO_FATAL_FAILURE(ChmodAndDropRoot(existing, 0666, 0555));

  auto created = SqlitePlanStore::Open(path());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(created.status().message()),
              AllOf(HasSubstr(path()), HasSubstr("directory " + dir_.path() + " is not writable")));

  // WAL needs -wal and -shm files beside an existing file too.
  auto opened = SqlitePlanStore::Open(existing);
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(
      opened.status().message(),
      AllOf(HasSubstr(existing), HasSubstr("directory " + dir_.path() + " is not writable")));
}

TEST_F(SqlitePlanStoreTest, FullDatabaseRefusesWritesAndKeepsEarlierRecordsIntact) {
  const std::string plan(20000, 'p');  // five pages of overflow per record
  std::vector<PlanRecord> stored;
  absl::Status full;
  {
    auto store = SqlitePlanStore::Open(path(), {.max_page_count = 64});
    ASSERT_TRUE(store.ok()) << store.status();
    for (int n = 0; n < 100 && full.ok(); ++n) {
      PlanRecord record = Succeeded(MakeRecord(n), 5000 + n, plan + std::to_string(n));
      full = (*store)->Insert(record);
      if (full.ok()) stored.push_back(record);
    }
    ASSERT_EQ(full.code(), absl::StatusCode::kUnavailable) << full;
    EXPECT_THAT(std::string(full.message()), AllOf(HasSubstr(path()), HasSubstr("full")));
    ASSERT_GE(stored.size(), 3u);

    // An update that would grow the file fails the same way and changes nothing.
    PlanRecord grown = stored.front();
    grown.plan_json = std::string(200000, 'g');
    absl::Status update = (*store)->Update(grown);
    EXPECT_EQ(update.code(), absl::StatusCode::kUnavailable) << update;
    EXPECT_THAT(std::string(update.message()), HasSubstr("full"));

    EXPECT_EQ((*store)->Count().value(), static_cast<int64_t>(stored.size()));
    for (const PlanRecord& r : stored) {
      EXPECT_EQ(Fields((*store)->GetByJobId(r.job_id).value().value()), Fields(r));
    }
    // Small writes that fit still work: deleting frees room.
    EXPECT_TRUE((*store)->Delete(stored.back().job_id).ok());
    stored.pop_back();
  }
  EXPECT_EQ(QueryFile(path(), "PRAGMA integrity_check"), "ok");
  auto reopened = SqlitePlanStore::Open(path());  // no cap: room again
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE((*reopened)->Insert(MakeRecord(1000)).ok());
  for (const PlanRecord& r : stored) {
    EXPECT_EQ(Fields((*reopened)->GetByJobId(r.job_id).value().value()), Fields(r));
  }
}

TEST(OpenPlanStoreTest, RejectsBadSpellingsNamingStore) {
  for (const std::string spec : {"", "sqlite:", "plans.db", "mysql://user:hunter2@db/plans",
                                 "postgresql:/db", "SQLITE:plans.db", "file:plans.db"}) {
    auto store = OpenPlanStore(spec);
    EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_THAT(std::string(store.status().message()),
                AllOf(HasSubstr("store"), Not(HasSubstr("hunter2"))))
        << spec;
  }
}

TEST(OpenPlanStoreTest, OpensSqliteFiles) {
  TempDir dir;
  auto store = OpenPlanStore("sqlite:" + dir.path() + "/p.db");
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->backend(), "sqlite");
  auto bad = OpenPlanStore("sqlite:" + dir.path() + "/missing/p.db");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace shardplan::store_testing
