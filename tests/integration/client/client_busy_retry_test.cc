// PlannerClient against a busy real server: a RESOURCE_EXHAUSTED the server marks as transient
// (every planning slot taken) is retried within the call's deadline; one for good (a task over
// the server's limits) is not.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "client/shardplan_client.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/client/client_test_support.h"

namespace shardplan::testing {
namespace {

using ::shardplan::client::ClientOptions;
using ::shardplan::client::PlannerClient;
using ::shardplan::client::RetryEvent;

// Holds the server's only planning slot with a slow Plan call until Release(). A probe of
// AwaitSlotTaken may reach the server first and take the slot; the slow call it then finds
// refused (RESOURCE_EXHAUSTED) is made again, so the slot ends up held whatever the timing.
class SlotHolder {
 public:
  explicit SlotHolder(ServerProcess& server) : thread_([this, &server] { Hold(server); }) {}
  ~SlotHolder() {
    Release();
    thread_.join();
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }

 private:
  void Hold(ServerProcess& server) {
    auto stub = shardplan::v1::PlannerService::NewStub(server.Channel());
    while (true) {
      grpc::ClientContext context;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (released_) return;
        context_ = &context;
      }
      shardplan::v1::PlanResponse response;
      const grpc::Status status = stub->Plan(&context, SlowRequest(), &response);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        context_ = nullptr;
      }
      if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  std::mutex mutex_;
  bool released_ = false;
  grpc::ClientContext* context_ = nullptr;  // the call in flight, to cancel
  std::thread thread_;                      // last: starts once the rest is built
};

class ClientBusyRetryTest : public ServerClientTest {
 protected:
  // One planning slot, and a small table limit to be over.
  static void SetUpTestSuite() {
    StartServer({"--max_concurrent_plans=1", "--max_tables=20", "--store="});
  }

  std::unique_ptr<PlannerClient> Connect(int max_attempts,
                                         std::function<void(const RetryEvent&)> on_retry) {
    ClientOptions options;
    options.max_attempts = max_attempts;
    options.initial_backoff = absl::Milliseconds(20);
    options.max_backoff = absl::Milliseconds(50);
    options.default_timeout = absl::Seconds(20);
    options.on_retry = std::move(on_retry);
    auto client = PlannerClient::Connect(server_->target(), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  static shardplan::v1::PlanRequest Quick(uint64_t seed) {
    shardplan::v1::PlanRequest request;
    *request.mutable_task() = SmallTask(6, 2);
    request.set_algorithm("size_lookup_greedy");
    request.set_seed(seed);
    return request;
  }

  // Retries Plan(Quick(seed)) without a retry budget until the server reports the slot taken.
  void AwaitSlotTaken(uint64_t seed) {
    std::unique_ptr<PlannerClient> probe = Connect(1, nullptr);
    for (int i = 0; i < 500; ++i) {
      absl::StatusOr<shardplan::v1::PlanResponse> result = probe->Plan(Quick(seed + i));
      if (absl::IsResourceExhausted(result.status())) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "the slow call never took the planning slot";
  }
};

TEST_F(ClientBusyRetryTest, ABusyServerIsRetriedUntilASlotFrees) {
  SlotHolder holder(*server_);
  AwaitSlotTaken(1000);

  // Without retries the refusal comes back, marked transient.
  std::unique_ptr<PlannerClient> once = Connect(1, nullptr);
  absl::StatusOr<shardplan::v1::PlanResponse> refused = once->Plan(Quick(1));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StartsWith(refused.status().message(), "max_concurrent_plans: 1 "))
      << refused.status();

  // With retries the call waits: the slot is freed at its first retry, and it succeeds.
  std::vector<RetryEvent> events;
  std::unique_ptr<PlannerClient> patient = Connect(10, [&](const RetryEvent& event) {
    events.push_back(event);
    holder.Release();
  });
  absl::StatusOr<shardplan::v1::PlanResponse> planned = patient->Plan(Quick(2));
  ASSERT_TRUE(planned.ok()) << planned.status();
  ASSERT_GE(events.size(), 1u);
  EXPECT_EQ(events[0].status.code(), absl::StatusCode::kResourceExhausted);
  // The server's hint (100 ms) outweighs the client's first backoff (20 ms).
  EXPECT_GE(events[0].backoff, absl::Milliseconds(100));
}

TEST_F(ClientBusyRetryTest, ATaskOverTheServersLimitsIsNotRetried) {
  std::vector<RetryEvent> events;
  std::unique_ptr<PlannerClient> client =
      Connect(10, [&](const RetryEvent& event) { events.push_back(event); });
  shardplan::v1::PlanRequest too_big = Quick(3);
  *too_big.mutable_task() = SmallTask(21, 2);  // --max_tables=20
  absl::StatusOr<shardplan::v1::PlanResponse> refused = client->Plan(too_big);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StartsWith(refused.status().message(), "task.tables: ")) << refused.status();
  EXPECT_TRUE(events.empty());
}

// A training job's launch through the client library, with the server's default limits: 64
// ranks on one host are one client to max_requests_per_client (16), so most are refused at
// first, marked transient; the clients retry and every rank gets the one plan computed.
class ClientLaunchStormTest : public ServerClientTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--store="}); }
};

TEST_F(ClientLaunchStormTest, EveryRankGetsThePlanComputedOnce) {
  constexpr int kRanks = 64;
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = SmallTask(300, 8);  // a few hundred ms of NeuroShard (analytic)
  std::vector<absl::StatusOr<shardplan::v1::PlanResponse>> results(
      kRanks, absl::UnknownError("not run"));
  std::atomic<int> ready{0};
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      ClientOptions options;  // the defaults a training job has: 4 attempts, 200 ms backoff
      options.default_timeout = absl::Seconds(30);
      auto client = PlannerClient::Connect(server_->target(), options);
      if (!client.ok()) {
        results[r] = client.status();
        return;
      }
      ++ready;
      while (ready.load() < kRanks) std::this_thread::yield();
      results[r] = (*client)->Plan(request);
    });
  }
  for (std::thread& rank : ranks) rank.join();
  int computed = 0;
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r].status();
    EXPECT_EQ(results[r]->plan().request_hash(), results[0]->plan().request_hash());
    EXPECT_DOUBLE_EQ(results[r]->plan().cost_ms(), results[0]->plan().cost_ms());
    computed += !results[r]->cache_hit() && !results[r]->joined_in_flight();
  }
  EXPECT_EQ(computed, 1);
}

}  // namespace
}  // namespace shardplan::testing
