// A training job's launch: every rank asks the real server for the same plan at once. Identical
// requests in flight are computed once (single flight); the rest wait for that plan, each under
// its own deadline, holding no planning slot.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;

// 1500 tables on 16 devices: NeuroShard under the analytic model plans it in about half a second
// here (seconds under the sanitizers), long enough for every rank to arrive while it plans even
// on a loaded machine (300 tables took under 100 ms, and a rank sometimes came too late).
v1::PlanRequest LaunchRequest() {
  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(1500, 16);
  return request;
}

class LaunchStormTest : public ServerTest {
 protected:
  // A stub on a connection of its own, as each rank of a job has (gRPC otherwise shares one
  // connection between channels to the same target, and the server would see one client).
  std::unique_ptr<v1::PlannerService::Stub> RankStub() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return v1::PlannerService::NewStub(grpc::CreateCustomChannel(
        absl::StrCat("127.0.0.1:", server_.grpc_port()), grpc::InsecureChannelCredentials(),
        args));
  }
};

TEST_F(LaunchStormTest, SixtyFourRanksAskingAtOnceGetSixtyFourAnswersFromOneComputation) {
  // 8 planning slots (the default). The ranks share one address, which max_requests_per_client
  // would count as one client: off here, so that no refusal (and no client retry, which
  // tests/integration/client covers) is needed for every rank to get its answer.
  StartServer({"--max_requests_per_client=0"});
  constexpr int kRanks = 64;
  std::vector<std::unique_ptr<v1::PlannerService::Stub>> stubs;
  for (int r = 0; r < kRanks; ++r) stubs.push_back(RankStub());
  std::vector<grpc::Status> statuses(kRanks);
  std::vector<v1::PlanResponse> responses(kRanks);
  std::atomic<int> ready{0};
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      ++ready;
      while (ready.load() < kRanks) std::this_thread::yield();
      statuses[r] = stubs[r]->Plan(Context().get(), LaunchRequest(), &responses[r]);
    });
  }
  for (std::thread& rank : ranks) rank.join();

  int joined = 0;
  int cached = 0;
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_TRUE(statuses[r].ok()) << "rank " << r << ": " << statuses[r].error_message();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
        responses[r].plan().tables(0), responses[0].plan().tables(0)));
    EXPECT_EQ(responses[r].plan().request_hash(), responses[0].plan().request_hash());
    EXPECT_DOUBLE_EQ(responses[r].plan().cost_ms(), responses[0].plan().cost_ms());
    joined += responses[r].joined_in_flight();
    cached += responses[r].cache_hit();
  }
  // One rank planned; every other one joined its computation or, arriving after it ended,
  // found the plan in the cache.
  EXPECT_EQ(joined + cached, kRanks - 1);
  EXPECT_GT(joined, 0);
  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, R"(shardplan_plans_total{algorithm="neuroshard"})"), 1);
  EXPECT_EQ(MetricValue(metrics, "shardplan_plan_singleflight_joins_total"), joined);
  EXPECT_EQ(MetricValue(metrics, "shardplan_sync_plans_rejected_total"), 0);
  EXPECT_EQ(MetricValue(metrics, R"(shardplan_rpc_requests_total{code="OK",method="Plan"})"),
            kRanks);
}

TEST_F(LaunchStormTest, AWaitingRankKeepsItsOwnDeadlineAndTheComputationGoesOn) {
  StartServer({"--max_concurrent_plans=1"});
  const v1::PlanRequest request = LaunchRequest();
  std::unique_ptr<v1::PlannerService::Stub> leader_stub = RankStub();
  grpc::Status leader_status;
  v1::PlanResponse leader_response;
  std::thread leader(
      [&] { leader_status = leader_stub->Plan(Context().get(), request, &leader_response); });
  ASSERT_EQ(AwaitMetric("shardplan_sync_plans_in_progress", 1), 1);

  // A rank with a short deadline joins, and gives up alone when its deadline passes. It holds
  // no planning slot: the only one is the leader's, yet it was not refused.
  v1::PlanResponse response;
  grpc::Status impatient =
      RankStub()->Plan(Context(std::chrono::milliseconds(50)).get(), request, &response);
  EXPECT_EQ(impatient.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << impatient.error_message();
  // A patient one gets the plan.
  grpc::Status patient = RankStub()->Plan(Context().get(), request, &response);
  leader.join();
  ASSERT_TRUE(leader_status.ok()) << leader_status.error_message();
  ASSERT_TRUE(patient.ok()) << patient.error_message();
  EXPECT_TRUE(response.joined_in_flight() || response.cache_hit());
  EXPECT_EQ(response.plan().request_hash(), leader_response.plan().request_hash());
  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, R"(shardplan_plans_total{algorithm="neuroshard"})"), 1);
  EXPECT_EQ(MetricValue(metrics, "shardplan_sync_plans_rejected_total"), 0);
  EXPECT_GE(MetricValue(metrics, "shardplan_plan_singleflight_joins_total"), 1);
}

}  // namespace
}  // namespace shardplan::integration
