#include "server/plan_ledger.h"

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "server/store/plan_store.h"

namespace shardplan {
namespace {

PlanningRequest Request() {
  PlanningRequest request;
  for (const char* name : {"a", "b"}) {
    Table table;
    table.name = name;
    table.rows = 1000;
    table.dim = 16;
    table.pooling_factor = 1.0;
    request.task.tables.push_back(table);
  }
  request.task.topology.memory_bytes = {int64_t{1} << 30, int64_t{1} << 30};
  request.model = "analytic";
  return request;
}

TEST(JobKeyTest, AcceptsNamesAndRefusesOthersNamingTheField) {
  EXPECT_TRUE(ValidateJobKey("").ok());
  EXPECT_TRUE(ValidateJobKey("team/train-run_7:epoch.3").ok());
  for (const std::string& bad : {std::string("has space"), std::string("quote\""),
                                std::string(257, 'k'), std::string("nul\0x", 5)}) {
    absl::Status status = ValidateJobKey(bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(status.message().substr(0, 8), "job_key:") << bad;
  }
}

TEST(JobKeyTest, FingerprintIgnoresTableOrderAndKeyButNotTheRequest) {
  const PlanningRequest request = Request();
  const std::string base = KeyedRequestFingerprint(request);
  PlanningRequest reordered = request;
  std::swap(reordered.task.tables[0], reordered.task.tables[1]);
  reordered.job_key = "k";
  reordered.bypass_cache = true;
  EXPECT_EQ(KeyedRequestFingerprint(reordered), base);
  for (auto change : {+[](PlanningRequest& r) { r.seed = 1; },
                      +[](PlanningRequest& r) { r.model = "analytic@1"; },
                      +[](PlanningRequest& r) { r.algorithm = "dim_greedy"; },
                      +[](PlanningRequest& r) { r.params["x"] = "1"; },
                      +[](PlanningRequest& r) { r.task.tables[0].dim = 8; }}) {
    PlanningRequest changed = request;
    change(changed);
    EXPECT_NE(KeyedRequestFingerprint(changed), base);
  }
}

TEST(PlanLedgerTest, WithoutAStoreFindsNothingAndWritesNothing) {
  PlanLedger ledger(nullptr, "replica", TaskLimits{}, nullptr);
  EXPECT_FALSE(ledger.enabled());
  EXPECT_FALSE(ledger.FindKeyed("k")->has_value());
  EXPECT_FALSE(ledger.FindJob("id")->has_value());
  EXPECT_TRUE(ledger.Unfinished()->empty());
  EXPECT_EQ(ledger.Delete("id").code(), absl::StatusCode::kFailedPrecondition);
}

TEST(PlanLedgerTest, RecordsJobsThroughTheirLifeAndKeepsCancellationsForResumeOnShutdown) {
  const std::string dir = ::testing::TempDir() + "/plan_ledger_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  absl::StatusOr<std::unique_ptr<PlanStore>> store = OpenPlanStore("sqlite:" + dir + "/p.db");
  ASSERT_TRUE(store.ok()) << store.status();
  PlanLedger ledger(store->get(), "replica-a", TaskLimits{}, nullptr);
  PreparedRequest prepared;
  prepared.asked = Request();
  prepared.cache_key = "hash";
  // A prepared request needs an algorithm for its name; RecordQueued reads only that.
  class NamedPlanner : public Algorithm {
   public:
    NamedPlanner() { info_.name = "size_greedy"; }
    const AlgorithmInfo& info() const override { return info_; }
    absl::StatusOr<::shardplan::Plan> Run(const Task&, const PlanningContext&) const override {
      return absl::UnimplementedError("unused");
    }

   private:
    AlgorithmInfo info_;
  } planner;
  prepared.planning.algorithm = &planner;

  absl::StatusOr<PlanRecord> job1 = ledger.RecordQueued("job1", prepared, false, "token:a");
  ASSERT_TRUE(job1.ok()) << job1.status();
  absl::StatusOr<PlanRecord> job2 = ledger.RecordQueued("job2", prepared, false, "token:a");
  ASSERT_TRUE(job2.ok()) << job2.status();
  ASSERT_EQ(ledger.Unfinished()->size(), 2u);
  ledger.RecordRunning(*job1);
  EXPECT_EQ((*ledger.FindJob("job1"))->status, "RUNNING");

  PlanningResult result;
  result.plan.algorithm = "size_greedy";
  result.request_hash = "hash";
  ledger.RecordFinished(*job1, result);
  absl::StatusOr<JobSnapshot> done = RecordToSnapshot(**ledger.FindJob("job1"));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, JobState::kSucceeded);
  EXPECT_EQ(done->result->plan.algorithm, "size_greedy");

  ledger.BeginShutdown();
  ledger.RecordFinished(*job2, absl::CancelledError("shutting down"));
  EXPECT_EQ((*ledger.FindJob("job2"))->status, "QUEUED");  // resumed by the next start
  // A job known only by its id (one cancelled before it ran) is read, then recorded.
  ledger.RecordFinished("job2", absl::InternalError("boom"));
  absl::StatusOr<JobSnapshot> failed = RecordToSnapshot(**ledger.FindJob("job2"));
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->error.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failed->error.message(), "boom");
  EXPECT_TRUE(ledger.Unfinished()->empty());
}

}  // namespace
}  // namespace shardplan
