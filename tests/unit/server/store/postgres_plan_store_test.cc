// What only the PostgreSQL backend does, against a real server: lost connections, a server that
// goes away and comes back, replicas creating the schema together, and passwords kept out of
// messages.

#include "server/store/postgres_plan_store.h"

#include <memory>
#include <string>
#include <thread>
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

class PostgresPlanStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<StoreLocation>> location = StoreLocation::Create("postgresql");
    ASSERT_TRUE(location.ok()) << location.status();
    location_ = std::move(*location);
    server_ = location_->postgres();
    ASSERT_NE(server_, nullptr);
  }

  // The location's URI with a password (the server trusts everyone: it is never checked).
  std::string UriWithPassword() const {
    std::string uri = location_->spec();
    return uri.replace(uri.find("postgres@"), 9, "postgres:hunter2pw@");
  }

  std::string Database() const {
    return location_->spec().substr(location_->spec().rfind('/') + 1);
  }

  std::unique_ptr<StoreLocation> location_;
  testing::PostgresServer* server_ = nullptr;
};

TEST_F(PostgresPlanStoreTest, ALostConnectionIsResetAndTheCallRetried) {
  auto store = PostgresPlanStore::Open(location_->spec());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->Insert(MakeRecord(1)).ok());

  auto killed = server_->Query(
      "postgres",
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
      "'shardplan' AND pid <> pg_backend_pid()");
  ASSERT_TRUE(killed.ok()) << killed.status();
  ASSERT_EQ(killed->size(), 1u);

  absl::StatusOr<std::optional<PlanRecord>> found = (*store)->GetByJobId(JobId(1));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_TRUE(found->has_value());
  EXPECT_TRUE((*store)->Insert(MakeRecord(2)).ok());
  EXPECT_EQ((*store)->Count().value(), 2);
}

TEST_F(PostgresPlanStoreTest, ADownServerIsUnavailableWithoutThePasswordAndThenServesAgain) {
  auto store = PostgresPlanStore::Open(UriWithPassword());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->description(),
            absl::StrCat("postgres@127.0.0.1:", server_->port(), "/", Database()));
  ASSERT_TRUE((*store)->Insert(MakeRecord(1)).ok());

  ASSERT_TRUE(server_->Stop().ok());
  absl::Status down = (*store)->Insert(MakeRecord(2));
  EXPECT_EQ(down.code(), absl::StatusCode::kUnavailable) << down;
  EXPECT_THAT(std::string(down.message()),
              AllOf(HasSubstr((*store)->description()), Not(HasSubstr("hunter2pw"))));
  EXPECT_EQ((*store)->GetByJobId(JobId(1)).status().code(), absl::StatusCode::kUnavailable);

  ASSERT_TRUE(server_->Restart().ok()) << server_->log();
  EXPECT_TRUE((*store)->Insert(MakeRecord(2)).ok());
  EXPECT_EQ((*store)->Count().value(), 2);
}

TEST_F(PostgresPlanStoreTest, AnUnreachableServerIsUnavailableWithoutThePassword) {
  std::string uri = UriWithPassword();
  const std::string port = absl::StrCat(":", server_->port(), "/");
  uri.replace(uri.find(port), port.size(), ":1/");
  auto store = OpenPlanStore(uri);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr("plan store (postgresql postgres@127.0.0.1:1/"),
                    Not(HasSubstr("hunter2pw"))));
  EXPECT_EQ(OpenPlanStore("postgres://postgres:hunter2pw@127.0.0.1:1/x").status().code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(PostgresPlanStoreTest, ReplicasStartingTogetherCreateTheSchemaOnce) {
  // A fresh database for each round, opened by several replicas at once.
  for (int round = 0; round < 3; ++round) {
    absl::StatusOr<std::string> uri =
        server_->CreateDatabase(absl::StrCat(Database(), "_race", round));
    ASSERT_TRUE(uri.ok()) << uri.status();
    std::vector<absl::Status> results(6);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = OpenPlanStore(*uri).status(); });
    }
    for (std::thread& thread : threads) thread.join();
    for (const absl::Status& status : results) EXPECT_TRUE(status.ok()) << status;
  }
}

TEST_F(PostgresPlanStoreTest, ADatabaseOfANewerSchemaIsRefused) {
  ASSERT_TRUE(OpenPlanStore(location_->spec()).ok());
  ASSERT_TRUE(server_->Query(Database(), "UPDATE plan_store_schema SET version = 9").ok());
  auto store = OpenPlanStore(location_->spec());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("schema version 9"));
}

TEST_F(PostgresPlanStoreTest, ADatabaseOfSchemaVersion1IsMigratedAndItsRecordsServedUnverified) {
  const PlanRecord old = Succeeded(MakeRecord(1), 2000, R"({"tables":[1]})");
  {
    auto store = OpenPlanStore(location_->spec());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(old).ok());
  }
  // What a version-1 database looks like: no checksum, no record_bytes, no submitted_by.
  ASSERT_TRUE(server_
                  ->Query(Database(),
                          "DROP INDEX plans_bytes; ALTER TABLE plans DROP COLUMN checksum, DROP "
                          "COLUMN record_bytes, DROP COLUMN submitted_by; UPDATE "
                          "plan_store_schema SET version = 1")
                  .ok());
  auto store = OpenPlanStore(location_->spec());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(server_->Query(Database(), "SELECT version FROM plan_store_schema").value(),
            std::vector<std::vector<std::string>>{{"3"}});
  ExpectMigrated(**store, old);
}

TEST_F(PostgresPlanStoreTest, ADatabaseOfSchemaVersion2IsMigratedAndItsRecordsStillVerify) {
  const PlanRecord old = Succeeded(MakeRecord(1), 2000, R"({"tables":[1]})");
  {
    auto store = OpenPlanStore(location_->spec());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(old).ok());
  }
  // What a version-2 database looks like: checksums, no submitted_by.
  ASSERT_TRUE(server_
                  ->Query(Database(),
                          "ALTER TABLE plans DROP COLUMN submitted_by; UPDATE plan_store_schema "
                          "SET version = 2")
                  .ok());
  auto store = OpenPlanStore(location_->spec());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(server_->Query(Database(), "SELECT version FROM plan_store_schema").value(),
            std::vector<std::vector<std::string>>{{"3"}});
  ExpectMigratedFromVersion2(**store, old);
}

TEST_F(PostgresPlanStoreTest, MalformedUriIsInvalidArgumentWithoutThePassword) {
  auto store = OpenPlanStore("postgresql://postgres:hun%zzter2@127.0.0.1/db");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(store.status().message()),
              AllOf(HasSubstr("store"), Not(HasSubstr("zzter2"))));
}

}  // namespace
}  // namespace shardplan::store_testing
