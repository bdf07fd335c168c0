// Graceful shutdown of the real server on SIGTERM / SIGINT.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr auto kExitTimeout = std::chrono::seconds(30);

// A search that stops itself after `ms` through the task's own time limit: it runs long
// enough to be caught by the signal, and ends on its own whatever the machine's speed.
v1::PlanRequest SelfLimitedRequest(int64_t ms) {
  v1::PlanRequest request = SlowRequest();
  request.mutable_task()->set_max_planning_time_ms(ms);
  return request;
}

// Polls health until it reports `status` (2: NOT_SERVING) or a generous timeout passes.
bool AwaitHealthStatus(const std::shared_ptr<grpc::Channel>& channel, int status) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    absl::StatusOr<int> health = testing::CheckHealth(channel, "");
    if (health.ok() && *health == status) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class ShutdownTest : public ServerTest {
 protected:
  // Waits for the server to exit and expects status 0: the drain completed.
  void ExpectExitZero() {
    absl::StatusOr<int> code = server_.WaitForExit(kExitTimeout);
    ASSERT_TRUE(code.ok()) << code.status();
    EXPECT_EQ(*code, 0) << server_.log();
  }
};

TEST_F(ShutdownTest, IdleServerExitsZeroOnSigterm) {
  StartServer();
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  ASSERT_NO_FATAL_FAILURE(ExpectExitZero());
}

TEST_F(ShutdownTest, SigintDrainsLikeSigterm) {
  StartServer();
  ASSERT_TRUE(server_.Signal(SIGINT).ok());
  ASSERT_NO_FATAL_FAILURE(ExpectExitZero());
}

TEST_F(ShutdownTest, RunningJobFinishesWhileNewWorkIsRefused) {
  StartServer({"--drain_timeout_s=60"});
  const std::string id = Submit(SelfLimitedRequest(4000));
  AwaitState(id, v1::RUNNING);

  // Watch the job across the shutdown: the stream must deliver its end.
  std::unique_ptr<grpc::ClientContext> watch_context = Context();
  auto watch = stub_->WatchPlan(watch_context.get(), Job(id));
  v1::JobStatus status;
  ASSERT_TRUE(watch->Read(&status));

  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  ASSERT_TRUE(AwaitHealthStatus(server_.Channel(), /*NOT_SERVING=*/2)) << server_.log();

  v1::SubmitPlanResponse refused;
  grpc::Status submit = stub_->SubmitPlan(Context().get(), SlowRequest(), &refused);
  EXPECT_EQ(submit.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(submit.error_message(), HasSubstr("shutting down"));
  v1::PlanResponse planned;
  EXPECT_EQ(Plan(SlowRequest(), &planned).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(GetJob(id).state(), v1::RUNNING);  // job queries still work while draining

  while (watch->Read(&status)) {
  }
  EXPECT_TRUE(watch->Finish().ok());
  // It ended by its own time limit (an error today; a best-so-far plan should the search become
  // anytime), not by the drain.
  EXPECT_NE(status.state(), v1::CANCELLED) << status.DebugString();
  EXPECT_TRUE(status.state() == v1::SUCCEEDED ||
              (status.state() == v1::FAILED &&
               status.error_code() == static_cast<int>(grpc::StatusCode::DEADLINE_EXCEEDED)))
      << status.DebugString();

  ASSERT_NO_FATAL_FAILURE(ExpectExitZero());
}

TEST_F(ShutdownTest, DrainTimeoutCancelsWhatIsLeft) {
  StartServer({"--drain_timeout_s=1", "--workers=1"});
  const std::string running = Submit(SlowRequest());
  AwaitState(running, v1::RUNNING);
  const std::string queued = Submit(SlowRequest());

  std::unique_ptr<grpc::ClientContext> watch_context = Context();
  auto watch = stub_->WatchPlan(watch_context.get(), Job(running));
  v1::JobStatus status;
  ASSERT_TRUE(watch->Read(&status));

  const auto signalled = Clock::now();
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  while (watch->Read(&status)) {
  }
  EXPECT_EQ(status.state(), v1::CANCELLED) << status.DebugString();

  ASSERT_NO_FATAL_FAILURE(ExpectExitZero());
  EXPECT_GE(Clock::now() - signalled, std::chrono::seconds(1));  // it did wait for the drain
  EXPECT_THAT(server_.log(), HasSubstr("cancelling 1 queued and 1 running jobs"));
}

TEST_F(ShutdownTest, InFlightPlanCallFinishesDuringTheDrain) {
  StartServer({"--drain_timeout_s=60"});
  grpc::Status plan_status;
  v1::PlanResponse response;
  std::thread call([&] { plan_status = Plan(SelfLimitedRequest(3000), &response); });
  // Signal only once the server is handling the call.
  ASSERT_EQ(AwaitMetric(R"(shardplan_rpcs_in_flight{method="Plan"})", 1), 1);
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  call.join();
  // The call ran to the task's own limit rather than being cut off by the shutdown
  // (CANCELLED) or refused (UNAVAILABLE).
  EXPECT_TRUE(plan_status.ok() || plan_status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
      << plan_status.error_code() << ": " << plan_status.error_message();
  ASSERT_NO_FATAL_FAILURE(ExpectExitZero());
}

}  // namespace
}  // namespace shardplan::integration
