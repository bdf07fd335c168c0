// A read-only SQLite plan store (chmod 0444; the server runs as `nobody` when the test runs as
// root, since permission bits do not stop root): the server starts as a read-only replica,
// serves the plans and jobs it holds, refuses what must be recorded with UNAVAILABLE, and plans
// keyless requests as ever.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr uid_t kNobodyUid = 65534;

class StoreReadOnlyTest : public ServerTest {};

TEST_F(StoreReadOnlyTest, ServesStoredPlansAndRefusesNewRecords) {
  StartServer();
  v1::PlanResponse kept;
  ASSERT_TRUE(Plan(KeyedRequest("kept/plan"), &kept).ok());
  const std::string job = Submit(QuickRequest(1));
  const v1::JobStatus job_done = AwaitState(job, v1::SUCCEEDED);
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());

  // The file becomes read-only; its directory stays writable (WAL's -shm goes there). The lock
  // file the first server (root) created is removed, so that `nobody` can create its own.
  const std::string path = server_.store().substr(7);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod(fs::path(path).parent_path().c_str(), 0777), 0);
  fs::remove(path + ".lock");
  if (geteuid() == 0) server_.SetUser(kNobodyUid, kNobodyUid);
  StartServer();
  EXPECT_THAT(server_.log(), HasSubstr("store: the SQLite file is read-only"));

  // Stored plans and jobs are served.
  v1::PlanResponse again;
  grpc::Status status = Plan(KeyedRequest("kept/plan"), &again);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(again.from_store());
  EXPECT_EQ(again.job_id(), kept.job_id());
  EXPECT_EQ(Shards(again.plan()), Shards(kept.plan()));
  const v1::JobStatus stored = GetJob(job);
  EXPECT_EQ(stored.state(), v1::SUCCEEDED);
  EXPECT_EQ(Shards(stored.result().plan()), Shards(job_done.result().plan()));

  // What must be recorded is refused, saying why.
  v1::PlanResponse response;
  status = Plan(KeyedRequest("new/plan", 2), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("job_key: the plan could not be stored"));
  EXPECT_THAT(status.error_message(), HasSubstr("readonly database (the file is read-only)"));
  v1::SubmitPlanResponse submitted;
  status = stub_->SubmitPlan(Context().get(), QuickRequest(3), &submitted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("plan store: the job could not be recorded"));

  // Keyless plans are planned (not stored) as ever.
  status = Plan(QuickRequest(4), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GT(response.plan().tables_size(), 0);
  EXPECT_TRUE(response.job_id().empty());
  EXPECT_EQ(testing::CheckHealth(server_.Channel(), "").value_or(-1), 1);  // SERVING
  EXPECT_EQ(SqliteIntegrity(server_.store()), "ok");
}

}  // namespace
}  // namespace shardplan::integration
