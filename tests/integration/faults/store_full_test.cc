// A full disk under the SQLite plan store: the server runs with a file-size limit (RLIMIT_FSIZE,
// SIGXFSZ ignored), so its store files stop growing and writes fail with EFBIG as on a full
// disk. It keeps serving everything that needs no new record, refuses what must be recorded
// with UNAVAILABLE and the database's reason, and after a restart with room the file is sound
// and complete.
#include <signal.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

// Room for the schema and some dozens of records (each commit appends several 4 KiB pages to
// the WAL), far below the WAL's 4 MB auto-checkpoint.
constexpr off_t kFileSizeLimit = 1 << 20;
constexpr char kFailedInserts[] =
    "shardplan_store_operations_total{code=\"UNAVAILABLE\",operation=\"insert\"}";

class StoreFullTest : public ServerTest {
 protected:
  v1::PlanResponse MustPlan(const v1::PlanRequest& request) {
    v1::PlanResponse response;
    grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(StoreFullTest, WritesFailCleanlyAndEverythingStoredSurvives) {
  server_.SetFileSizeLimit(kFileSizeLimit);
  StartServer();
  const v1::PlanResponse kept = MustPlan(KeyedRequest("kept/plan"));
  const std::string job = Submit(QuickRequest(1));
  const v1::JobStatus job_done = AwaitState(job, v1::SUCCEEDED);
  const v1::PlanResponse first_keyless = MustPlan(QuickRequest(1000));
  ASSERT_FALSE(first_keyless.job_id().empty());  // stored while there was room

  // Distinct keyless plans until the store refuses to grow; each is still answered.
  // Records acknowledged so far: the keyed plan, the job, the first keyless plan.
  int stored = 3;
  uint64_t seed = 1001;
  for (; seed < 11000 && MetricValue(Scrape(), kFailedInserts) == 0; ++seed) {
    if (!MustPlan(QuickRequest(seed)).job_id().empty()) ++stored;
  }
  ASSERT_GT(MetricValue(Scrape(), kFailedInserts), 0) << "the store never filled";

  EXPECT_EQ(testing::CheckHealth(server_.Channel(), "").value_or(-1), 1);  // SERVING
  // A cached plan and a new keyless plan are answered; the new one is not stored.
  EXPECT_TRUE(MustPlan(QuickRequest(1000)).cache_hit());
  const v1::PlanResponse unstored = MustPlan(QuickRequest(seed + 1));
  EXPECT_TRUE(unstored.job_id().empty());
  EXPECT_GT(unstored.plan().tables_size(), 0);

  // What must be recorded is refused, with the database's reason.
  v1::PlanResponse response;
  grpc::Status status = Plan(KeyedRequest("new/plan", 7), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("job_key: the plan could not be stored"));
  EXPECT_THAT(status.error_message(), AnyOf(HasSubstr("full"), HasSubstr("disk")));
  // SQLite reports EFBIG (this test's full disk) as "disk I/O error" and ENOSPC as "database
  // or disk is full".
  EXPECT_THAT(status.error_message(), HasSubstr("plan store (sqlite"));
  v1::SubmitPlanResponse submitted;
  status = stub_->SubmitPlan(Context().get(), QuickRequest(8), &submitted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("plan store: the job could not be recorded"));
  EXPECT_THAT(status.error_message(), AnyOf(HasSubstr("full"), HasSubstr("disk")));

  // Reads still work: the earlier keyed plan and job.
  const v1::PlanResponse again = MustPlan(KeyedRequest("kept/plan"));
  EXPECT_TRUE(again.from_store());
  EXPECT_EQ(again.job_id(), kept.job_id());
  EXPECT_EQ(GetJob(job).state(), v1::SUCCEEDED);

  // Restarted with room: the file is sound, everything stored is there, writes work again.
  ASSERT_TRUE(server_.Signal(SIGKILL).ok());
  ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
  EXPECT_EQ(SqliteIntegrity(server_.store()), "ok");
  // Exactly the records whose writes succeeded: none lost, none half-written.
  EXPECT_EQ(SqliteQuery(server_.store(), "SELECT count(*) FROM plans"), std::to_string(stored));
  server_.SetFileSizeLimit(0);
  StartServer();
  const v1::PlanResponse restored = MustPlan(KeyedRequest("kept/plan"));
  EXPECT_TRUE(restored.from_store());
  EXPECT_EQ(Shards(restored.plan()), Shards(kept.plan()));
  EXPECT_EQ(Shards(GetJob(job).result().plan()), Shards(job_done.result().plan()));
  EXPECT_EQ(GetJob(first_keyless.job_id()).state(), v1::SUCCEEDED);
  const v1::PlanResponse stored_now = MustPlan(KeyedRequest("new/plan", 7));
  EXPECT_FALSE(stored_now.job_id().empty());
  const std::string new_job = Submit(QuickRequest(8));
  AwaitState(new_job, v1::SUCCEEDED);
  EXPECT_EQ(SqliteIntegrity(server_.store()), "ok");
}

}  // namespace
}  // namespace shardplan::integration
