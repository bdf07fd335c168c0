// PlannerClient's asynchronous calls against the real server: submit, watch, get, cancel.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/shardplan_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/client/client_test_support.h"

namespace shardplan::testing {
namespace {

using ::shardplan::client::JobStatusToStatus;
using ::shardplan::v1::JobStatus;
using ::testing::HasSubstr;

class ClientJobTest : public ServerClientTest {};

TEST_F(ClientJobTest, SubmitThenWatchDeliversStatusesUntilSucceeded) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = ExampleTask("task_8dev.json");
  request.set_algorithm("lookup_greedy");
  auto submitted = client_->SubmitPlan(request);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  ASSERT_FALSE(submitted->job_id().empty());

  std::vector<JobStatus> seen;
  auto final_status = client_->WatchPlan(submitted->job_id(),
                                         [&](const JobStatus& status) { seen.push_back(status); });
  ASSERT_TRUE(final_status.ok()) << final_status.status();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().state(), shardplan::v1::SUCCEEDED);
  EXPECT_EQ(final_status->state(), shardplan::v1::SUCCEEDED);
  for (const JobStatus& status : seen) EXPECT_EQ(status.job_id(), submitted->job_id());
  ASSERT_TRUE(final_status->result().has_plan());
  EXPECT_EQ(final_status->result().plan().tables_size(), request.task().tables_size());
  EXPECT_EQ(final_status->result().plan().algorithm(), "lookup_greedy");
  EXPECT_TRUE(JobStatusToStatus(*final_status).ok());

  // A finished job stays readable.
  auto got = client_->GetPlan(submitted->job_id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->state(), shardplan::v1::SUCCEEDED);
  EXPECT_EQ(got->result().plan().request_hash(), final_status->result().plan().request_hash());
}

TEST_F(ClientJobTest, CancelStopsALongJob) {
  auto submitted = client_->SubmitPlan(SlowRequest());
  ASSERT_TRUE(submitted.ok()) << submitted.status();

  auto cancelled = client_->CancelPlan(submitted->job_id());
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_NE(cancelled->state(), shardplan::v1::SUCCEEDED);

  auto final_status = client_->WatchPlan(submitted->job_id(), nullptr);
  ASSERT_TRUE(final_status.ok()) << final_status.status();
  EXPECT_EQ(final_status->state(), shardplan::v1::CANCELLED);
  EXPECT_EQ(JobStatusToStatus(*final_status).code(), absl::StatusCode::kCancelled);
}

TEST_F(ClientJobTest, InfeasibleJobEndsFailedWithFailedPrecondition) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = SmallTask(2, 2);
  request.mutable_task()->mutable_tables(1)->set_rows(int64_t{1} << 32);
  request.mutable_task()->mutable_tables(1)->set_dim(128);
  auto submitted = client_->SubmitPlan(request);
  ASSERT_TRUE(submitted.ok()) << submitted.status();

  auto final_status = client_->WatchPlan(submitted->job_id(), nullptr);
  ASSERT_TRUE(final_status.ok()) << final_status.status();
  EXPECT_EQ(final_status->state(), shardplan::v1::FAILED);
  const absl::Status error = JobStatusToStatus(*final_status);
  EXPECT_EQ(error.code(), absl::StatusCode::kFailedPrecondition) << error;
  EXPECT_THAT(error.message(), HasSubstr("t1"));
}

TEST_F(ClientJobTest, InvalidTaskIsRejectedAtSubmit) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = SmallTask(2, 2);
  request.mutable_task()->mutable_tables(0)->set_rows(0);
  auto submitted = client_->SubmitPlan(request);
  EXPECT_EQ(submitted.status().code(), absl::StatusCode::kInvalidArgument) << submitted.status();
}

TEST_F(ClientJobTest, UnknownJobIsNotFound) {
  EXPECT_EQ(client_->GetPlan("no-such-job").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->CancelPlan("no-such-job").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->WatchPlan("no-such-job", nullptr).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace shardplan::testing
