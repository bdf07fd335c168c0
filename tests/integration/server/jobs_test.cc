// SubmitPlan / GetPlan / WatchPlan / CancelPlan against the real server.
#include <chrono>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;

// Every status WatchPlan streams until it ends.
std::vector<v1::JobStatus> Watch(v1::PlannerService::Stub& stub, const std::string& id,
                                 grpc::Status* final_status) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  auto reader = stub.WatchPlan(&context, Job(id));
  std::vector<v1::JobStatus> seen;
  for (v1::JobStatus status; reader->Read(&status);) seen.push_back(status);
  *final_status = reader->Finish();
  return seen;
}

class JobsTest : public ServerTest {};

TEST_F(JobsTest, SubmittedJobSucceedsAndWatchStreamsItToTheEnd) {
  StartServer();
  v1::SubmitPlanResponse submitted;
  ASSERT_TRUE(stub_->SubmitPlan(Context().get(), QuickRequest(), &submitted).ok());
  EXPECT_EQ(submitted.job_id().size(), 32u);
  EXPECT_EQ(submitted.state(), v1::QUEUED);

  grpc::Status finished;
  std::vector<v1::JobStatus> seen = Watch(*stub_, submitted.job_id(), &finished);
  ASSERT_TRUE(finished.ok()) << finished.error_message();
  ASSERT_FALSE(seen.empty());
  const v1::JobStatus& last = seen.back();
  EXPECT_EQ(last.state(), v1::SUCCEEDED);
  EXPECT_EQ(last.result().plan().tables_size(), 6);
  EXPECT_EQ(last.progress_fraction(), 1.0);
  EXPECT_GT(last.submitted_unix_ms(), 0);
  EXPECT_GE(last.finished_unix_ms(), last.started_unix_ms());
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_TRUE(seen[i].state() == v1::QUEUED || seen[i].state() == v1::RUNNING);
  }

  // Jobs and Plan share the cache: the same request is now a hit.
  v1::PlanResponse planned;
  ASSERT_TRUE(Plan(QuickRequest(), &planned).ok());
  EXPECT_TRUE(planned.cache_hit());
  EXPECT_EQ(planned.plan().request_hash(), last.result().plan().request_hash());

  // Watching a finished job returns its final status at once.
  seen = Watch(*stub_, submitted.job_id(), &finished);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].state(), v1::SUCCEEDED);
}

TEST_F(JobsTest, BadRequestsFailAtSubmission) {
  StartServer();
  v1::PlanRequest request = QuickRequest();
  request.mutable_task()->mutable_tables(0)->set_rows(0);
  v1::SubmitPlanResponse submitted;
  grpc::Status status = stub_->SubmitPlan(Context().get(), request, &submitted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("task.tables[0].rows"));
}

TEST_F(JobsTest, InfeasibleJobFailsWithTheReason) {
  StartServer();
  v1::PlanRequest request = QuickRequest();
  request.mutable_task()->mutable_tables(0)->set_rows(int64_t{1} << 33);  // 256 GiB at dim 8
  const std::string id = Submit(request);
  v1::JobStatus failed = AwaitState(id, v1::FAILED);
  EXPECT_EQ(failed.error_code(), static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION));
  EXPECT_THAT(failed.error_message(), HasSubstr("t00"));
  EXPECT_FALSE(failed.has_result());
}

TEST_F(JobsTest, UnknownJobsAreNotFound) {
  StartServer();
  v1::JobStatus status;
  grpc::Status rpc = stub_->GetPlan(Context().get(), Job("0123456789abcdef"), &status);
  EXPECT_EQ(rpc.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(rpc.error_message(), HasSubstr("0123456789abcdef"));
  EXPECT_EQ(stub_->CancelPlan(Context().get(), Job("nope"), &status).error_code(),
            grpc::StatusCode::NOT_FOUND);
  grpc::Status watched;
  EXPECT_TRUE(Watch(*stub_, "nope", &watched).empty());
  EXPECT_EQ(watched.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(stub_->GetPlan(Context().get(), Job(""), &status).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(JobsTest, CancellingARunningJobEndsItCancelled) {
  StartServer();
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);
  v1::JobStatus status;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &status).ok());
  v1::JobStatus cancelled = AwaitState(id, v1::CANCELLED);
  EXPECT_EQ(cancelled.error_code(), static_cast<int>(grpc::StatusCode::CANCELLED));
  EXPECT_GT(cancelled.finished_unix_ms(), 0);
  // Cancelling again changes nothing.
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &status).ok());
  EXPECT_EQ(status.state(), v1::CANCELLED);
  EXPECT_EQ(status.finished_unix_ms(), cancelled.finished_unix_ms());
}

TEST_F(JobsTest, QueueIsBoundedAndQueuedJobsCancelAtOnce) {
  StartServer({"--workers=1", "--queue_capacity=1"});
  const std::string running = Submit(SlowRequest());
  AwaitState(running, v1::RUNNING);
  const std::string queued = Submit(QuickRequest());
  EXPECT_EQ(GetJob(queued).state(), v1::QUEUED);

  v1::SubmitPlanResponse refused;
  grpc::Status full = stub_->SubmitPlan(Context().get(), QuickRequest(), &refused);
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(full.error_message(), HasSubstr("queue is full"));

  v1::JobStatus status;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(queued), &status).ok());
  EXPECT_EQ(status.state(), v1::CANCELLED);
  EXPECT_EQ(status.started_unix_ms(), 0);  // it never ran
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(running), &status).ok());
  AwaitState(running, v1::CANCELLED);
}

TEST_F(JobsTest, FinishedJobsAreRetainedUpToTheLimit) {
  // In memory, only the newest max_retained_jobs; without a plan store that is
  // all there is.
  StartServer({"--max_retained_jobs=2", "--store="});
  std::vector<std::string> ids;
  for (int seed = 0; seed < 3; ++seed) {
    v1::PlanRequest request = QuickRequest();
    request.set_seed(seed);
    ids.push_back(Submit(request));
    AwaitState(ids.back(), v1::SUCCEEDED);
  }
  v1::JobStatus status;
  EXPECT_EQ(stub_->GetPlan(Context().get(), Job(ids[0]), &status).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(stub_->GetPlan(Context().get(), Job(ids[2]), &status).ok());
}

TEST_F(JobsTest, JobsForgottenInMemoryAreReadFromTheStore) {
  StartServer({"--max_retained_jobs=1"});
  const std::string first = Submit(QuickRequest(1));
  const v1::JobStatus done = AwaitState(first, v1::SUCCEEDED);
  AwaitState(Submit(QuickRequest(2)), v1::SUCCEEDED);
  const v1::JobStatus stored = GetJob(first);
  EXPECT_EQ(stored.state(), v1::SUCCEEDED);
  EXPECT_EQ(stored.result().plan().cost_ms(), done.result().plan().cost_ms());
  // WatchPlan of a stored job sends its final status and ends.
  grpc::ClientContext context;
  auto reader = stub_->WatchPlan(&context, Job(first));
  v1::JobStatus watched;
  ASSERT_TRUE(reader->Read(&watched));
  EXPECT_EQ(watched.state(), v1::SUCCEEDED);
  EXPECT_FALSE(reader->Read(&watched));
  EXPECT_TRUE(reader->Finish().ok());
}

TEST_F(JobsTest, WatchReturnsWhenTheClientGoesAway) {
  StartServer();
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);
  {
    grpc::ClientContext context;
    auto reader = stub_->WatchPlan(&context, Job(id));
    v1::JobStatus first;
    ASSERT_TRUE(reader->Read(&first));
    context.TryCancel();
    while (reader->Read(&first)) {
    }
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  // The server's handler noticed and returned (it records the call when it does).
  EXPECT_EQ(AwaitMetric(R"(shardplan_rpc_requests_total{code="CANCELLED",method="WatchPlan"})", 1),
            1);
  v1::JobStatus status;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &status).ok());
}

}  // namespace
}  // namespace shardplan::integration

namespace shardplan::integration {
namespace {

// A NeuroShard search made slow on purpose (no cost cache, a fine grid, many steps) so that it
// is still running when its first beam step ends.
v1::PlanRequest SlowNeuroShardRequest() {
  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(120, 8);
  request.set_algorithm("neuroshard");
  (*request.mutable_parameters())["cost_cache"] = "false";
  (*request.mutable_parameters())["grid_steps"] = "101";
  (*request.mutable_parameters())["max_steps"] = "64";
  return request;
}

TEST_F(JobsTest, NeuroShardStreamsEachBeamStepToWatchers) {
  StartServer();
  const std::string id = Submit(SlowNeuroShardRequest());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  auto reader = stub_->WatchPlan(&context, Job(id));
  v1::JobStatus step_status;
  for (v1::JobStatus status; reader->Read(&status);) {
    if (status.progress().starts_with("neuroshard: step ")) {
      step_status = status;
      v1::JobStatus cancelled;
      ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &cancelled).ok());
    }
  }
  EXPECT_TRUE(reader->Finish().ok());
  EXPECT_EQ(step_status.state(), v1::RUNNING) << step_status.DebugString();
  EXPECT_THAT(step_status.progress(), HasSubstr("/64, best cost "));
  EXPECT_GT(step_status.progress_fraction(), 0.0);
  EXPECT_LT(step_status.progress_fraction(), 1.0);
  EXPECT_EQ(AwaitState(id, v1::CANCELLED).state(), v1::CANCELLED);
}

}  // namespace
}  // namespace shardplan::integration
