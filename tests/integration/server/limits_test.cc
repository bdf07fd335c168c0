// Load limits of the real server: max_concurrent_plans (Plan calls planning at once) and
// max_rpc_threads (gRPC's synchronous handler threads).
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

class LimitsTest : public ServerTest {
 protected:
  Watcher Watch(const std::string& id) { return OpenWatch(*stub_, id); }
};

TEST_F(LimitsTest, PlanCallsBeyondMaxConcurrentPlansAreRefusedWhileCacheHitsAreServed) {
  StartServer({"--max_concurrent_plans=1"});
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(QuickRequest(), &response).ok());  // now cached

  // One slow exhaustive Plan call takes the only planning slot until it is cancelled.
  grpc::ClientContext slow_context;
  slow_context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  grpc::Status slow_status;
  std::thread slow([&] {
    v1::PlanResponse slow_response;
    slow_status = stub_->Plan(&slow_context, SlowRequest(), &slow_response);
  });
  const std::string in_progress = "shardplan_sync_plans_in_progress";
  ASSERT_EQ(AwaitMetric(in_progress, 1), 1);

  grpc::Status refused = Plan(QuickRequest(/*seed=*/7), &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), StartsWith("max_concurrent_plans: 1 "));
  v1::PlanRequest bypass = QuickRequest();
  bypass.set_bypass_cache(true);  // plans, so it needs a slot too
  EXPECT_EQ(Plan(bypass, &response).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  grpc::Status cached = Plan(QuickRequest(), &response);
  ASSERT_TRUE(cached.ok()) << cached.error_message();
  EXPECT_TRUE(response.cache_hit());
  // Jobs have their own workers and are not counted against the limit.
  AwaitState(Submit(QuickRequest(/*seed=*/8)), v1::SUCCEEDED);

  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, "shardplan_sync_plans_rejected_total"), 2);
  EXPECT_EQ(MetricValue(metrics,
                        R"(shardplan_rpc_requests_total{code="RESOURCE_EXHAUSTED",method="Plan"})"),
            2);

  slow_context.TryCancel();
  slow.join();
  EXPECT_EQ(slow_status.error_code(), grpc::StatusCode::CANCELLED);
  // The handler gives the slot back once its planner stops.
  ASSERT_EQ(AwaitMetric(in_progress, 0), 0);
  grpc::Status planned = Plan(QuickRequest(/*seed=*/7), &response);
  ASSERT_TRUE(planned.ok()) << planned.error_message();
  EXPECT_FALSE(response.cache_hit());
}

TEST_F(LimitsTest, CallsBeyondTheThreadCapAreRefusedWhileHealthStillAnswers) {
  // Three threads: two handlers (the watchers below) and the one gRPC keeps polling with.
  StartServer({"--max_concurrent_plans=1", "--max_rpc_threads=3"});
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);

  Watcher first = Watch(id);
  ASSERT_NE(first.stream, nullptr);
  Watcher second = Watch(id);
  ASSERT_NE(second.stream, nullptr);

  // Every handler thread is taken: gRPC itself refuses the next call.
  v1::JobStatus job;
  EXPECT_EQ(stub_->GetPlan(Context().get(), Job(id), &job).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  absl::StatusOr<int> health = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, 1);  // SERVING: health checks do not use the handler threads

  // A watcher leaving frees its thread; the calls work again.
  v1::JobStatus status;
  first.context->TryCancel();
  while (first.stream->Read(&status)) {
  }
  EXPECT_EQ(first.stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  grpc::Status cancelled;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancelled = stub_->CancelPlan(Context().get(), Job(id), &job);
  } while (!cancelled.ok() && Clock::now() < deadline);
  ASSERT_TRUE(cancelled.ok()) << cancelled.error_message();
  while (second.stream->Read(&status)) {
  }
  EXPECT_TRUE(second.stream->Finish().ok());
  EXPECT_EQ(status.state(), v1::CANCELLED);
}

}  // namespace
}  // namespace shardplan::integration
