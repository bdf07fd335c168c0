// Load limits of the real server: max_concurrent_plans (Plan calls planning at once) and
// max_rpc_threads (gRPC's synchronous handler threads).
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

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

// One attempt at a WatchPlan stream: the status it ended with when refused, OK when it opened
// (the stream is then closed again).
grpc::Status TryWatch(v1::PlannerService::Stub& stub, const std::string& id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  auto stream = stub.WatchPlan(&context, Job(id));
  v1::JobStatus status;
  if (stream->Read(&status)) {
    context.TryCancel();
    while (stream->Read(&status)) {
    }
    stream->Finish();
    return grpc::Status::OK;
  }
  return stream->Finish();
}

// Retries `call` while gRPC refuses it for want of a thread: its thread quota is given back
// lazily (a poller that just finished a call may still hold it), so a free thread can take a
// moment to show. Up to 10 s; the last status.
grpc::Status RetryWhileThreadsBusy(const std::function<grpc::Status()>& call) {
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  grpc::Status status;
  do {
    status = call();
    if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED ||
        status.error_message() != "Server Threadpool Exhausted") {
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (Clock::now() < give_up);
  return status;
}

// Issue 18: one client with one job and ~260 WatchPlan streams took every handler thread, and
// every other call was refused "Server Threadpool Exhausted". Streams now have bounds of their
// own, below the thread cap, and the server says when its threads run out.
TEST_F(LimitsTest, StreamsCannotTakeEveryThreadAndSaturationShows) {
  // 7 threads: 6 handlers and gRPC's poller; saturated from 6 calls in flight, clear below 5.
  StartServer({"--max_concurrent_plans=2", "--max_rpc_threads=7", "--max_streams=4",
               "--max_streams_per_client=0", "--health_address=127.0.0.1:0"});
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);
  std::vector<Watcher> watchers;
  for (int w = 0; w < 4; ++w) {
    watchers.push_back(Watch(id));
    ASSERT_NE(watchers.back().stream, nullptr) << "watcher " << w;
  }
  grpc::Status refused = RetryWhileThreadsBusy([&] { return TryWatch(*stub_, id); });
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), StartsWith("max_streams: 4 WatchPlan streams are open"));
  // Every other call still finds a thread.
  v1::JobStatus job;
  grpc::Status got =
      RetryWhileThreadsBusy([&] { return stub_->GetPlan(Context().get(), Job(id), &job); });
  ASSERT_TRUE(got.ok()) << got.error_message();
  v1::PlanResponse response;
  grpc::Status planned = RetryWhileThreadsBusy([&] { return Plan(QuickRequest(), &response); });
  ASSERT_TRUE(planned.ok()) << planned.error_message();
  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, "shardplan_watch_streams"), 4);
  EXPECT_EQ(
      MetricValue(metrics,
                  R"(shardplan_rpc_requests_total{code="RESOURCE_EXHAUSTED",method="WatchPlan"})"),
      1);
  EXPECT_EQ(MetricValue(metrics, "shardplan_rpc_saturated"), 0);

  // Two slow Plan calls take the last two handler threads: saturated. The planner service's
  // health says so while the process's stays SERVING.
  std::vector<std::unique_ptr<grpc::ClientContext>> slow_contexts;
  std::vector<std::thread> slow;
  for (int i = 0; i < 2; ++i) {
    slow_contexts.push_back(Context(kRpcTimeout));
    slow.emplace_back([&, context = slow_contexts.back().get(), i] {
      v1::PlanRequest request = SlowRequest();
      request.set_seed(100 + i);  // two computations, not one joined by the other
      v1::PlanResponse slow_response;
      RetryWhileThreadsBusy([&] { return stub_->Plan(context, request, &slow_response); });
    });
  }
  ASSERT_EQ(AwaitMetric("shardplan_rpc_saturated", 1), 1);
  absl::StatusOr<int> service =
      testing::CheckHealth(server_.Channel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ(*service, 2);  // NOT_SERVING
  absl::StatusOr<int> probe =  // the health port mirrors it
      testing::CheckHealth(server_.HealthChannel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(*probe, 2);
  absl::StatusOr<int> overall = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(overall.ok()) << overall.status();
  EXPECT_EQ(*overall, 1);
  for (auto& context : slow_contexts) context->TryCancel();
  for (std::thread& thread : slow) thread.join();
  ASSERT_EQ(AwaitMetric("shardplan_rpc_saturated", 0), 0);
  service = testing::CheckHealth(server_.Channel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ(*service, 1);
  probe = testing::CheckHealth(server_.HealthChannel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(*probe, 1);

  grpc::Status cancelled =
      RetryWhileThreadsBusy([&] { return stub_->CancelPlan(Context().get(), Job(id), &job); });
  ASSERT_TRUE(cancelled.ok()) << cancelled.error_message();
  v1::JobStatus status;
  for (Watcher& watcher : watchers) {
    while (watcher.stream->Read(&status)) {
    }
    EXPECT_TRUE(watcher.stream->Finish().ok());
  }
  ASSERT_EQ(AwaitMetric("shardplan_watch_streams", 0), 0);
}

TEST_F(LimitsTest, OneClientsStreamsAreBoundedPerClient) {
  StartServer({"--max_streams_per_client=1"});
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);
  Watcher first = Watch(id);
  ASSERT_NE(first.stream, nullptr);
  grpc::Status refused = TryWatch(*stub_, id);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              StartsWith("max_streams_per_client: client \"peer:127.0.0.1\" already has 1 "
                         "WatchPlan streams open"));
  v1::JobStatus job;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &job).ok());
  v1::JobStatus status;
  while (first.stream->Read(&status)) {
  }
  EXPECT_TRUE(first.stream->Finish().ok());
  // The stream gave its slot back.
  ASSERT_EQ(AwaitMetric("shardplan_watch_streams", 0), 0);
  EXPECT_TRUE(TryWatch(*stub_, id).ok());
}

}  // namespace
}  // namespace shardplan::integration
