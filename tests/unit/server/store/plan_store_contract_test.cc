// The PlanStore contract, run against every backend: SQLite and a real PostgreSQL server.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/plan_store.h"
#include "tests/unit/server/store/store_test_util.h"

namespace shardplan::store_testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class PlanStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<StoreLocation>> location = StoreLocation::Create(GetParam());
    ASSERT_TRUE(location.ok()) << location.status();
    location_ = std::move(*location);
    absl::StatusOr<std::unique_ptr<PlanStore>> store = location_->Open();
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  PlanRecord Get(PlanStore& store, const std::string& job_id) {
    absl::StatusOr<std::optional<PlanRecord>> found = store.GetByJobId(job_id);
    EXPECT_TRUE(found.ok()) << found.status();
    EXPECT_TRUE(found.ok() && found->has_value()) << "no record " << job_id;
    return found.ok() && found->has_value() ? **found : PlanRecord{};
  }

  std::unique_ptr<StoreLocation> location_;
  std::unique_ptr<PlanStore> store_;
};

TEST_P(PlanStoreContractTest, NamesItsBackend) { EXPECT_EQ(store_->backend(), GetParam()); }

TEST_P(PlanStoreContractTest, InsertedRecordIsFoundByIdAndByKey) {
  PlanRecord record = MakeRecord(1);
  record.job_key = "training-job-7";
  record.error_code = 0;
  record.started_unix_ms = 1500;
  ASSERT_TRUE(store_->Insert(record).ok());

  EXPECT_EQ(Fields(Get(*store_, record.job_id)), Fields(record));
  absl::StatusOr<std::optional<PlanRecord>> by_key = store_->GetByJobKey("training-job-7");
  ASSERT_TRUE(by_key.ok()) << by_key.status();
  ASSERT_TRUE(by_key->has_value());
  EXPECT_EQ(Fields(**by_key), Fields(record));
}

TEST_P(PlanStoreContractTest, HistoryRecordsAreInsertedAsAnyOther) {
  const PlanRecord history = MakeRecord(1);
  ASSERT_TRUE(store_->InsertHistory(history).ok());
  EXPECT_EQ(Fields(Get(*store_, history.job_id)), Fields(history));
  EXPECT_EQ(store_->InsertHistory(MakeRecord(1)).code(), absl::StatusCode::kAlreadyExists);
  // The store's other writes are unaffected (SQLite restores its synchronous setting).
  ASSERT_TRUE(store_->Insert(MakeRecord(2)).ok());
  PlanRecord updated = Get(*store_, JobId(2));
  updated.status = "FAILED";
  ASSERT_TRUE(store_->Update(updated).ok());
  EXPECT_EQ(Get(*store_, JobId(2)).status, "FAILED");
  EXPECT_EQ(store_->Count().value(), 2);
  // Still there once the store is reopened.
  store_.reset();
  absl::StatusOr<std::unique_ptr<PlanStore>> reopened = location_->Open();
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ(Fields(Get(**reopened, history.job_id)), Fields(history));
}

TEST_P(PlanStoreContractTest, AbsentRecordsAreNullopt) {
  ASSERT_TRUE(store_->Insert(MakeRecord(1)).ok());  // no key
  EXPECT_EQ(store_->GetByJobId(JobId(2)).value(), std::nullopt);
  EXPECT_EQ(store_->GetByJobKey("nobody").value(), std::nullopt);
  // "" means "no key": it never finds the records without one.
  EXPECT_EQ(store_->GetByJobKey("").value(), std::nullopt);
}

TEST_P(PlanStoreContractTest, DuplicateJobIdIsAlreadyExists) {
  ASSERT_TRUE(store_->Insert(MakeRecord(1)).ok());
  PlanRecord again = MakeRecord(1);
  again.algorithm = "greedy";
  absl::Status status = store_->Insert(again);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("job_id"));
  EXPECT_EQ(Get(*store_, JobId(1)).algorithm, "neuroshard");
  EXPECT_EQ(store_->Count().value(), 1);
}

TEST_P(PlanStoreContractTest, TakenJobKeyIsAlreadyExistsButEmptyKeysNeverCollide) {
  PlanRecord first = MakeRecord(1);
  first.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(first).ok());
  PlanRecord second = MakeRecord(2);
  second.job_key = "job-a";
  absl::Status status = store_->Insert(second);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("job_key"));
  EXPECT_EQ(store_->GetByJobId(JobId(2)).value(), std::nullopt);

  for (int n = 3; n < 6; ++n) EXPECT_TRUE(store_->Insert(MakeRecord(n)).ok()) << n;
  EXPECT_EQ(store_->Count().value(), 4);
}

TEST_P(PlanStoreContractTest, UpdateOverwritesAllButIdKeyAndSubmittedTime) {
  PlanRecord record = MakeRecord(1);
  record.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(record).ok());

  PlanRecord update = record;
  update.job_key = "ignored-key";
  update.submitted_unix_ms = 999999;
  update.request_hash = "hash-new";
  update.request_json = R"({"changed":true})";
  update.plan_json = R"({"devices":[1,2]})";
  update.algorithm = "greedy";
  update.model_version = "default@2";
  update.status = "FAILED";
  update.error_code = 9;
  update.error_message = "table t1 fits nowhere";
  update.owner = "replica-b";
  update.started_unix_ms = 2000;
  update.finished_unix_ms = 3000;
  ASSERT_TRUE(store_->Update(update).ok());

  PlanRecord expected = update;
  expected.job_key = "job-a";
  expected.submitted_unix_ms = record.submitted_unix_ms;
  EXPECT_EQ(Fields(Get(*store_, record.job_id)), Fields(expected));
  EXPECT_TRUE(store_->GetByJobKey("job-a").value().has_value());
  EXPECT_EQ(store_->GetByJobKey("ignored-key").value(), std::nullopt);
}

TEST_P(PlanStoreContractTest, UpdateOfAMissingRecordIsNotFound) {
  absl::Status status = store_->Update(MakeRecord(1));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(JobId(1)));
  EXPECT_EQ(store_->Count().value(), 0);
}

TEST_P(PlanStoreContractTest, ReplaceKeyedMovesTheKeyAndTheOldRecordKeepsItsData) {
  PlanRecord old_plan = Succeeded(MakeRecord(1), 5000, R"({"old":true})");
  old_plan.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(old_plan).ok());

  PlanRecord new_plan = MakeRecord(2);
  new_plan.job_key = "job-a";
  ASSERT_TRUE(store_->ReplaceKeyed(new_plan).ok());

  EXPECT_EQ(store_->GetByJobKey("job-a").value()->job_id, JobId(2));
  PlanRecord expected_old = old_plan;
  expected_old.job_key = "";
  EXPECT_EQ(Fields(Get(*store_, JobId(1))), Fields(expected_old));
  EXPECT_EQ(store_->Count().value(), 2);

  // Without a holder it is a plain insert.
  PlanRecord fresh = MakeRecord(3);
  fresh.job_key = "job-b";
  ASSERT_TRUE(store_->ReplaceKeyed(fresh).ok());
  EXPECT_EQ(store_->GetByJobKey("job-b").value()->job_id, JobId(3));
}

TEST_P(PlanStoreContractTest, FailedReplaceKeyedLeavesTheKeyWithItsHolder) {
  PlanRecord holder = MakeRecord(1);
  holder.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(holder).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(2)).ok());

  PlanRecord clash = MakeRecord(2);  // job_id taken: the insert half fails
  clash.job_key = "job-a";
  absl::Status status = store_->ReplaceKeyed(clash);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_EQ(store_->GetByJobKey("job-a").value()->job_id, JobId(1));
  EXPECT_EQ(Get(*store_, JobId(2)).job_key, "");
}

TEST_P(PlanStoreContractTest, FindSucceededReturnsTheMostRecentlyFinishedSuccess) {
  PlanRecord early = Succeeded(MakeRecord(1), 5000, R"({"early":1})");
  PlanRecord late = Succeeded(MakeRecord(2), 7000, R"({"late":1})");
  PlanRecord middle = Succeeded(MakeRecord(3), 6000, R"({"middle":1})");
  PlanRecord failed_later = MakeRecord(4);
  failed_later.status = "FAILED";
  failed_later.finished_unix_ms = 9000;
  PlanRecord running = MakeRecord(5);
  running.status = "RUNNING";
  PlanRecord other_hash = Succeeded(MakeRecord(6), 9999);
  for (PlanRecord* r : {&early, &late, &middle, &failed_later, &running}) {
    r->request_hash = "hash-x";
    ASSERT_TRUE(store_->Insert(*r).ok());
  }
  ASSERT_TRUE(store_->Insert(other_hash).ok());

  absl::StatusOr<std::optional<PlanRecord>> found = store_->FindSucceeded("hash-x");
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(Fields(**found), Fields(late));
  EXPECT_EQ(store_->FindSucceeded("hash-none").value(), std::nullopt);

  // Only failures and unfinished jobs: nothing to fall back to.
  EXPECT_EQ(store_->FindSucceeded(MakeRecord(4).request_hash).value(), std::nullopt);
}

TEST_P(PlanStoreContractTest, ListUnfinishedFiltersOwnerAndStatusOldestFirst) {
  auto add = [&](int n, const std::string& owner, const std::string& status, int64_t submitted) {
    PlanRecord r = MakeRecord(n);
    r.owner = owner;
    r.status = status;
    r.submitted_unix_ms = submitted;
    if (status == "SUCCEEDED") r.plan_json = "{}";
    ASSERT_TRUE(store_->Insert(r).ok());
  };
  add(1, "replica-a", "RUNNING", 300);
  add(2, "replica-a", "QUEUED", 100);
  add(3, "replica-b", "QUEUED", 50);
  add(4, "replica-a", "SUCCEEDED", 10);
  add(5, "replica-a", "FAILED", 20);
  add(6, "replica-a", "CANCELLED", 30);
  add(7, "replica-a", "QUEUED", 200);

  absl::StatusOr<std::vector<PlanRecord>> mine = store_->ListUnfinished("replica-a");
  ASSERT_TRUE(mine.ok()) << mine.status();
  std::vector<std::string> ids;
  for (const PlanRecord& r : *mine) ids.push_back(r.job_id);
  EXPECT_THAT(ids, ElementsAre(JobId(2), JobId(7), JobId(1)));
  EXPECT_EQ(store_->ListUnfinished("replica-b").value().size(), 1u);
  EXPECT_TRUE(store_->ListUnfinished("replica-z").value().empty());
}

TEST_P(PlanStoreContractTest, DeleteRemovesTheRecordAndItsKey) {
  PlanRecord record = MakeRecord(1);
  record.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(record).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(2)).ok());
  ASSERT_TRUE(store_->Delete(JobId(1)).ok());
  EXPECT_EQ(store_->GetByJobId(JobId(1)).value(), std::nullopt);
  EXPECT_EQ(store_->Count().value(), 1);
  // The key is free again.
  PlanRecord reuse = MakeRecord(3);
  reuse.job_key = "job-a";
  EXPECT_TRUE(store_->Insert(reuse).ok());

  absl::Status status = store_->Delete(JobId(1));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
}

TEST_P(PlanStoreContractTest, PruneFinishedDeletesOldKeylessFinishedRecordsOldestFirst) {
  auto finished = [](int n, const char* status, int64_t at, const std::string& key = "") {
    PlanRecord r = Succeeded(MakeRecord(n), at);
    r.status = status;
    r.job_key = key;
    return r;
  };
  ASSERT_TRUE(store_->Insert(finished(1, "FAILED", 200)).ok());
  ASSERT_TRUE(store_->Insert(finished(2, "SUCCEEDED", 100)).ok());
  ASSERT_TRUE(store_->Insert(finished(3, "CANCELLED", 300)).ok());
  ASSERT_TRUE(store_->Insert(finished(4, "SUCCEEDED", 50, "training-job")).ok());  // keyed
  ASSERT_TRUE(store_->Insert(finished(5, "SUCCEEDED", 900)).ok());  // after the cut
  PlanRecord queued = MakeRecord(6);  // unfinished: finished_unix_ms 0, before any cut
  ASSERT_TRUE(store_->Insert(queued).ok());
  PlanRecord running = MakeRecord(7);
  running.status = "RUNNING";
  ASSERT_TRUE(store_->Insert(running).ok());

  // Batches of two, oldest first: 2 (100) and 1 (200), then 3 (300), then nothing.
  absl::StatusOr<int64_t> pruned = store_->PruneFinished(500, 2);
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_EQ(*pruned, 2);
  EXPECT_EQ(store_->GetByJobId(JobId(2)).value(), std::nullopt);
  EXPECT_EQ(store_->GetByJobId(JobId(1)).value(), std::nullopt);
  EXPECT_TRUE(store_->GetByJobId(JobId(3)).value().has_value());
  EXPECT_EQ(store_->PruneFinished(500, 2).value(), 1);
  EXPECT_EQ(store_->PruneFinished(500, 2).value(), 0);

  EXPECT_EQ(store_->Count().value(), 4);
  for (int n : {4, 5, 6, 7}) EXPECT_TRUE(store_->GetByJobId(JobId(n)).value().has_value()) << n;
  EXPECT_TRUE(store_->GetByJobKey("training-job").value().has_value());

  absl::StatusOr<int64_t> refused = store_->PruneFinished(500, 0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("max_records"));
  EXPECT_EQ(store_->Count().value(), 4);
}

TEST_P(PlanStoreContractTest, CountCountsEveryStatus) {
  EXPECT_EQ(store_->Count().value(), 0);
  const char* statuses[] = {"QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"};
  for (int n = 0; n < 5; ++n) {
    PlanRecord r = MakeRecord(n);
    r.status = statuses[n];
    ASSERT_TRUE(store_->Insert(r).ok());
  }
  EXPECT_EQ(store_->Count().value(), 5);
}

TEST_P(PlanStoreContractTest, RecordsItCannotHoldAreInvalidArgument) {
  PlanRecord nul = MakeRecord(1);
  nul.request_json = std::string("{\"a\":\"x\0y\"}", 11);  // the 11 bytes, NUL included
  absl::Status status = store_->Insert(nul);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("request_json"));

  PlanRecord no_id = MakeRecord(2);
  no_id.job_id = "";
  EXPECT_THAT(std::string(store_->Insert(no_id).message()), HasSubstr("job_id"));

  PlanRecord bad_status = MakeRecord(3);
  bad_status.status = "DONE";
  status = store_->Update(bad_status);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("status"));
  EXPECT_EQ(store_->Count().value(), 0);
}

TEST_P(PlanStoreContractTest, ConcurrentInsertsAndUpdatesFromTwoStoresLoseNothing) {
  absl::StatusOr<std::unique_ptr<PlanStore>> second = location_->Open();
  ASSERT_TRUE(second.ok()) << second.status();
  PlanStore* stores[] = {store_.get(), second->get()};
  constexpr int kThreads = 8;
  constexpr int kPerThread = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      PlanStore& store = *stores[t % 2];
      for (int i = 0; i < kPerThread; ++i) {
        const int n = t * kPerThread + i;
        PlanRecord r = MakeRecord(n);
        r.job_key = absl::StrCat("key-", n);
        if (!store.Insert(r).ok()) ++failures;
        if (!store.Update(Succeeded(r, 10000 + n, absl::StrCat(R"({"n":)", n, "}"))).ok()) {
          ++failures;
        }
        if (!store.GetByJobId(JobId(n)).ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store_->Count().value(), kThreads * kPerThread);
  for (int n = 0; n < kThreads * kPerThread; ++n) {
    PlanRecord r = Get(*stores[n % 2], JobId(n));
    EXPECT_EQ(r.status, "SUCCEEDED") << n;
    EXPECT_EQ(r.plan_json, absl::StrCat(R"({"n":)", n, "}"));
    EXPECT_EQ(r.job_key, absl::StrCat("key-", n));
  }
}

TEST_P(PlanStoreContractTest, RacingReplicasOnOneKeyHaveOneWinner) {
  absl::StatusOr<std::unique_ptr<PlanStore>> second = location_->Open();
  ASSERT_TRUE(second.ok()) << second.status();
  PlanStore* stores[] = {store_.get(), second->get()};
  constexpr int kThreads = 8;
  std::vector<absl::Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      PlanRecord r = MakeRecord(t);
      r.job_key = "contested";
      results[t] = stores[t % 2]->Insert(r);
    });
  }
  for (std::thread& thread : threads) thread.join();
  int winners = 0;
  for (const absl::Status& status : results) {
    if (status.ok()) {
      ++winners;
    } else {
      EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
    }
  }
  EXPECT_EQ(winners, 1);
  EXPECT_EQ(store_->Count().value(), 1);
}

TEST_P(PlanStoreContractTest, DataSurvivesClosingAndReopening) {
  PlanRecord record = Succeeded(MakeRecord(1), 4000);
  record.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(record).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(2)).ok());
  store_.reset();

  absl::StatusOr<std::unique_ptr<PlanStore>> reopened = location_->Open();
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ(Fields(Get(**reopened, JobId(1))), Fields(record));
  EXPECT_EQ((*reopened)->Count().value(), 2);
  EXPECT_EQ((*reopened)->FindSucceeded(record.request_hash).value()->job_id, JobId(1));
}

TEST_P(PlanStoreContractTest, TwoStoresOnOneDatabaseSeeEachOthersWrites) {
  absl::StatusOr<std::unique_ptr<PlanStore>> replica = location_->Open();
  ASSERT_TRUE(replica.ok()) << replica.status();
  PlanRecord record = MakeRecord(1);
  record.job_key = "job-a";
  ASSERT_TRUE(store_->Insert(record).ok());
  EXPECT_EQ(Fields(Get(**replica, JobId(1))), Fields(record));

  // The replica's update and its claim on a key are visible to the first store.
  ASSERT_TRUE((*replica)->Update(Succeeded(record, 5000)).ok());
  EXPECT_EQ(Get(*store_, JobId(1)).status, "SUCCEEDED");
  PlanRecord racing = MakeRecord(2);
  racing.job_key = "job-a";
  EXPECT_EQ((*replica)->Insert(racing).code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE((*replica)->Delete(JobId(1)).ok());
  EXPECT_EQ(store_->Count().value(), 0);
}

TEST_P(PlanStoreContractTest, MultiMegabyteJsonRoundTripsByteExact) {
  std::string request = R"({"tables":[)";
  for (int i = 0; request.size() < 5'000'000; ++i) {
    absl::StrAppend(&request, i ? "," : "", R"({"name":"table_)", i, R"(","rows":)",
                    (i * 7919) % 1000003, R"(,"dim":)", 4 << (i % 6), "}");
  }
  request += "]}";
  std::string plan(3'000'000, ' ');
  for (size_t i = 0; i < plan.size(); ++i) plan[i] = static_cast<char>('!' + (i * 31) % 90);
  PlanRecord record = Succeeded(MakeRecord(1), 5000, plan);
  record.request_json = request;
  ASSERT_TRUE(store_->Insert(record).ok());
  PlanRecord got = Get(*store_, JobId(1));
  EXPECT_EQ(got.request_json.size(), request.size());
  EXPECT_TRUE(got.request_json == request);
  EXPECT_TRUE(got.plan_json == plan);

  // Through an update as well, and seen by a second store.
  record.plan_json = plan + plan;
  ASSERT_TRUE(store_->Update(record).ok());
  absl::StatusOr<std::unique_ptr<PlanStore>> other = location_->Open();
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_TRUE(Get(**other, JobId(1)).plan_json == plan + plan);
}

TEST_P(PlanStoreContractTest, QuotesAndUnicodeRoundTrip) {
  PlanRecord record = MakeRecord(1);
  record.job_key = "it's \"quoted\"; DROP TABLE plans; -- \\ %s $1 ?1";
  record.request_json = R"({"name":"tëst – 表格 – 🚀 – e\u0301","q":"'\"\\"})";
  record.error_message = "résumé ½ ∑ \t tab\nnewline\r\n";
  record.owner = "réplica-α";
  ASSERT_TRUE(store_->Insert(record).ok());
  EXPECT_EQ(Fields(Get(*store_, JobId(1))), Fields(record));
  absl::StatusOr<std::optional<PlanRecord>> by_key = store_->GetByJobKey(record.job_key);
  ASSERT_TRUE(by_key.ok() && by_key->has_value());
  EXPECT_EQ((*by_key)->job_id, JobId(1));
  EXPECT_EQ(store_->ListUnfinished("réplica-α").value().size(), 1u);
  EXPECT_EQ(store_->Count().value(), 1);  // the table is still there
}

TEST_P(PlanStoreContractTest, EveryRecordCarriesItsChecksumThroughUpdatesAndKeyMoves) {
  PlanRecord record = Succeeded(MakeRecord(1), 2000, R"({"cost_ms":1.25})");
  record.job_key = "key";
  ASSERT_TRUE(store_->Insert(record).ok());
  EXPECT_EQ(Get(*store_, JobId(1)).checksum, RecordChecksum(record));
  record.plan_json = R"({"cost_ms":2.5})";
  record.submitted_unix_ms = 1;  // not written by Update, so not in the checksum
  ASSERT_TRUE(store_->Update(record).ok());
  EXPECT_EQ(Get(*store_, JobId(1)).checksum, RecordChecksum(record));
  PlanRecord next = Succeeded(MakeRecord(2), 3000);
  next.job_key = "key";
  ASSERT_TRUE(store_->ReplaceKeyed(next).ok());
  // The old record lost its key and is still sound.
  EXPECT_EQ(Get(*store_, JobId(1)).plan_json, record.plan_json);
  EXPECT_EQ(store_->GetByJobKey("key").value()->job_id, JobId(2));
}

TEST_P(PlanStoreContractTest, AChangedRecordIsDataLossNamingTheJobNeverAnotherPlan) {
  PlanRecord keyed = Succeeded(MakeRecord(1), 2000, R"({"cost_ms":1.25,"device":3})");
  keyed.job_key = "training-job";
  keyed.request_hash = "hash-1";
  ASSERT_TRUE(store_->Insert(keyed).ok());
  PlanRecord queued = MakeRecord(2);
  ASSERT_TRUE(store_->Insert(queued).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(3)).ok());
  // One digit of the plan and one of the queued request edited, as in the file: the database's
  // own checks cannot see it.
  ASSERT_TRUE(location_
                  ->Execute(absl::StrCat("UPDATE plans SET plan_json = replace(plan_json, '3}', "
                                         "'4}') WHERE job_id = '",
                                         JobId(1), "'"))
                  .ok());
  ASSERT_TRUE(location_
                  ->Execute(absl::StrCat("UPDATE plans SET request_json = request_json || ' ' "
                                         "WHERE job_id = '",
                                         JobId(2), "'"))
                  .ok());

  for (const absl::Status& status :
       {store_->GetByJobId(JobId(1)).status(), store_->GetByJobKey("training-job").status(),
        store_->FindSucceeded("hash-1").status(), store_->GetByJobId(JobId(2)).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("fails its checksum"));
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr("cost_ms")));
  }
  EXPECT_THAT(std::string(store_->GetByJobId(JobId(1)).status().message()),
              AllOf(HasSubstr("get by job_id " + JobId(1)), HasSubstr("job " + JobId(1))));
  EXPECT_THAT(std::string(store_->GetByJobKey("training-job").status().message()),
              HasSubstr("\"training-job\""));
  // Lists return the damaged record marked, not skipped.
  absl::StatusOr<std::vector<PlanRecord>> unfinished = store_->ListUnfinished("replica-a");
  ASSERT_TRUE(unfinished.ok()) << unfinished.status();
  ASSERT_EQ(unfinished->size(), 2u);
  EXPECT_EQ((*unfinished)[0].job_id, JobId(2));
  EXPECT_THAT((*unfinished)[0].damage, HasSubstr("checksum"));
  EXPECT_EQ((*unfinished)[1].damage, "");
  // Sound records are unaffected.
  EXPECT_EQ(Fields(Get(*store_, JobId(3))), Fields(MakeRecord(3)));
}

// Schema version 3: who submitted a record is kept, written by Update (it is in the checksum),
// and guarded by the checksum: neither setting nor clearing it in the database passes.
TEST_P(PlanStoreContractTest, SubmittedByIsKeptAndCoveredByTheChecksum) {
  PlanRecord owned = MakeRecord(1);
  owned.submitted_by = "token:trainer-a";
  ASSERT_TRUE(store_->Insert(owned).ok());
  PlanRecord history = Succeeded(MakeRecord(2), 2000);
  history.submitted_by = "cert:trainer-b";
  ASSERT_TRUE(store_->InsertHistory(history).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(3)).ok());  // no one's, as records before version 3
  EXPECT_EQ(Get(*store_, JobId(1)).submitted_by, "token:trainer-a");
  EXPECT_EQ(Get(*store_, JobId(2)).submitted_by, "cert:trainer-b");
  EXPECT_EQ(Get(*store_, JobId(3)).submitted_by, "");
  EXPECT_NE(RecordChecksum(owned), RecordChecksum(MakeRecord(1)));

  PlanRecord finished = Succeeded(owned, 3000);
  ASSERT_TRUE(store_->Update(finished).ok());
  EXPECT_EQ(Fields(Get(*store_, JobId(1))), Fields(finished));
  EXPECT_EQ(Get(*store_, JobId(1)).checksum, RecordChecksum(finished));

  // Taking a record (or giving one without an owner to someone) in the database is damage.
  ASSERT_TRUE(location_
                  ->Execute(absl::StrCat("UPDATE plans SET submitted_by = 'token:mallory' WHERE "
                                         "job_id IN ('",
                                         JobId(1), "', '", JobId(3), "')"))
                  .ok());
  ASSERT_TRUE(location_
                  ->Execute(absl::StrCat("UPDATE plans SET submitted_by = '' WHERE job_id = '",
                                         JobId(2), "'"))
                  .ok());
  for (int n : {1, 2, 3}) {
    EXPECT_EQ(store_->GetByJobId(JobId(n)).status().code(), absl::StatusCode::kDataLoss) << n;
  }
}

TEST_P(PlanStoreContractTest, RecordsWithoutAChecksumAreServedUnverified) {
  const PlanRecord record = Succeeded(MakeRecord(1), 2000);
  ASSERT_TRUE(store_->Insert(record).ok());
  // What a record written before schema version 2 reads as.
  ASSERT_TRUE(location_->Execute("UPDATE plans SET checksum = ''").ok());
  const PlanRecord read = Get(*store_, JobId(1));
  EXPECT_EQ(Fields(read), Fields(record));
  EXPECT_EQ(read.checksum, "");
}

TEST_P(PlanStoreContractTest, BytesCountRequestPlanAndErrorTextAndWhatIsKept) {
  PlanRecord keyless = Succeeded(MakeRecord(1), 2000, std::string(100, 'p'));
  PlanRecord keyed = Succeeded(MakeRecord(2), 2000, std::string(300, 'k'));
  keyed.job_key = "kept";
  PlanRecord failed = MakeRecord(3);
  failed.status = "FAILED";
  failed.error_message = "no room";
  const PlanRecord queued = MakeRecord(4);
  for (const PlanRecord& r : {keyless, keyed, failed, queued}) ASSERT_TRUE(store_->Insert(r).ok());
  absl::StatusOr<StoredBytes> bytes = store_->Bytes();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->total,
            RecordBytes(keyless) + RecordBytes(keyed) + RecordBytes(failed) + RecordBytes(queued));
  EXPECT_EQ(bytes->kept, RecordBytes(keyed) + RecordBytes(queued));
}

TEST_P(PlanStoreContractTest, PruneForSizeDeletesTheOldestKeylessFinishedRecordsUntilWithinBound) {
  // Keyless finished records of 100 plan bytes each, finished at 1000..5000, inserted out of
  // order; a keyed and an unfinished record older than all of them.
  for (int n : {3, 1, 5, 2, 4}) {
    ASSERT_TRUE(store_->Insert(Succeeded(MakeRecord(n), 1000 * n, std::string(100, 'p'))).ok());
  }
  PlanRecord keyed = Succeeded(MakeRecord(6), 10, std::string(1000, 'k'));
  keyed.job_key = "kept";
  ASSERT_TRUE(store_->Insert(keyed).ok());
  ASSERT_TRUE(store_->Insert(MakeRecord(7)).ok());
  const int64_t total = store_->Bytes().value().total;

  EXPECT_EQ(store_->PruneForSize(total, 10).value(), 0);  // within the bound
  // 150 bytes too many: the two oldest keyless records go (the first frees only 100).
  EXPECT_EQ(store_->PruneForSize(total - 150, 10).value(), 2);
  for (int n : {1, 2}) EXPECT_EQ(store_->GetByJobId(JobId(n)).value(), std::nullopt) << n;
  EXPECT_TRUE(store_->GetByJobId(JobId(3)).value().has_value());
  // At most max_records per call.
  EXPECT_EQ(store_->PruneForSize(0, 1).value(), 1);
  EXPECT_EQ(store_->GetByJobId(JobId(3)).value(), std::nullopt);
  // Keyed and unfinished records are never deleted for size, even when they alone exceed it.
  EXPECT_EQ(store_->PruneForSize(0, 10).value(), 2);
  EXPECT_EQ(store_->PruneForSize(0, 10).value(), 0);
  EXPECT_EQ(store_->Count().value(), 2);
  EXPECT_TRUE(store_->GetByJobKey("kept").value().has_value());
  EXPECT_EQ(store_->Bytes().value().total, store_->Bytes().value().kept);

  EXPECT_EQ(store_->PruneForSize(-1, 10).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->PruneForSize(10, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, PlanStoreContractTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace shardplan::store_testing
