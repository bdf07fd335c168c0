// Plan, EvaluatePlan and the lists against the real server: results, the plan cache, and the
// gRPC code and message of every kind of bad request.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::PlanRequest Request(v1::Task task) {
  v1::PlanRequest request;
  *request.mutable_task() = std::move(task);
  return request;
}

class PlanTest : public ServerTest {
 protected:
  void SetUp() override { StartServer({"--max_tables=50"}); }
};

TEST_F(PlanTest, PlansEveryTableWithTheDefaults) {
  v1::PlanResponse response;
  grpc::Status status = Plan(Request(SmallTask(6, 2)), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::Plan& plan = response.plan();
  EXPECT_FALSE(response.cache_hit());
  EXPECT_EQ(plan.tables_size(), 6);
  EXPECT_EQ(plan.devices_size(), 2);
  EXPECT_GT(plan.cost_ms(), 0);
  // The test server loads no bundles, so no neural model covers the task: the analytic one.
  EXPECT_EQ(plan.algorithm(), "neuroshard");
  EXPECT_EQ(plan.cost_model(), "analytic@1");
  EXPECT_EQ(plan.cost_kind(), "simulated");
  EXPECT_EQ(plan.selection(),
            "algorithm: neuroshard, the server's default (no algorithm named); model: "
            "analytic@1, as no loaded model covers 2 devices (no model named)");
  EXPECT_EQ(plan.request_hash().size(), 64u);
  // Canonical order: tables sorted by name whatever order they came in.
  EXPECT_TRUE(std::is_sorted(plan.tables().begin(), plan.tables().end(),
                             [](const auto& a, const auto& b) { return a.table() < b.table(); }));
}

TEST_F(PlanTest, AReorderedIdenticalTaskIsACacheHit) {
  v1::PlanResponse first;
  ASSERT_TRUE(Plan(Request(SmallTask(8, 3)), &first).ok());
  v1::Task reordered = SmallTask(8, 3);
  std::reverse(reordered.mutable_tables()->begin(), reordered.mutable_tables()->end());
  v1::PlanResponse second;
  ASSERT_TRUE(Plan(Request(reordered), &second).ok());
  EXPECT_TRUE(second.cache_hit());
  EXPECT_EQ(second.plan().request_hash(), first.plan().request_hash());
  // Compared as messages: map fields (parameters) serialize in no fixed order.
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(second.plan(), first.plan()));

  v1::PlanRequest bypass = Request(reordered);
  bypass.set_bypass_cache(true);
  v1::PlanResponse third;
  ASSERT_TRUE(Plan(bypass, &third).ok());
  EXPECT_FALSE(third.cache_hit());
  EXPECT_EQ(third.plan().request_hash(), first.plan().request_hash());

  v1::PlanRequest other_seed = Request(reordered);
  other_seed.set_seed(42);
  v1::PlanResponse fourth;
  ASSERT_TRUE(Plan(other_seed, &fourth).ok());
  EXPECT_FALSE(fourth.cache_hit());
  EXPECT_NE(fourth.plan().request_hash(), first.plan().request_hash());
}

TEST_F(PlanTest, ExactModelVersionIsRecorded) {
  v1::PlanRequest request = Request(SmallTask());
  request.set_model("analytic@1");
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(request, &response).ok());
  EXPECT_EQ(response.plan().cost_model(), "analytic@1");
}

TEST_F(PlanTest, InvalidTaskNamesTheField) {
  v1::Task task = SmallTask(3, 2);
  task.mutable_tables(1)->set_dim(6);
  v1::PlanResponse response;
  grpc::Status status = Plan(Request(task), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("task.tables[1].dim: "));

  task = SmallTask(3, 2);
  task.mutable_topology()->add_per_device_memory_gib(8);  // one capacity for two devices
  status = Plan(Request(task), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("task.topology.per_device_memory_gib: "));
}

TEST_F(PlanTest, UnknownAlgorithmListsTheKnownOnes) {
  v1::PlanRequest request = Request(SmallTask());
  request.set_algorithm("nope");
  v1::PlanResponse response;
  grpc::Status status = Plan(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("algorithm: unknown algorithm \"nope\"; known: "));
  EXPECT_THAT(status.error_message(), HasSubstr("exhaustive"));
}

TEST_F(PlanTest, BadParameterNamesIt) {
  v1::PlanRequest request = Request(SmallTask());
  request.set_algorithm("exhaustive");
  (*request.mutable_parameters())["max_placements"] = "-3";
  v1::PlanResponse response;
  grpc::Status status = Plan(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("parameters.max_placements"));
}

TEST_F(PlanTest, InfeasibleTaskNamesTheTable) {
  v1::Task task = SmallTask(3, 2);
  task.mutable_tables(2)->set_name("giant");
  // 80 GiB at dim 8 (32 B/row): even its narrowest column halves (dim 4, 40 GiB) fit nowhere.
  task.mutable_tables(2)->set_rows(int64_t{80} << 30 >> 5);
  task.mutable_tables(2)->set_dim(8);
  v1::PlanResponse response;
  grpc::Status status = Plan(Request(task), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("giant"));
}

TEST_F(PlanTest, UnknownModelIsNotFound) {
  v1::PlanRequest request = Request(SmallTask());
  request.set_model("neural@7");
  v1::PlanResponse response;
  grpc::Status status = Plan(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), StartsWith("model: "));
}

TEST_F(PlanTest, LimitsAreResourceExhausted) {
  v1::PlanResponse response;
  grpc::Status status = Plan(Request(SmallTask(51, 2)), &response);  // --max_tables=50
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("task.tables: "));

  v1::PlanRequest too_big = Request(SmallTask(12, 4));
  too_big.set_algorithm("exhaustive");  // 4^12 placements > the default max_placements
  status = Plan(too_big, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("max_placements"));
}

TEST_F(PlanTest, DeadlineExceededStopsTheSearch) {
  v1::PlanResponse response;
  const auto start = std::chrono::steady_clock::now();
  grpc::Status status =
      stub_->Plan(Context(std::chrono::milliseconds(500)).get(), SlowRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // The server stopped working on it and answers the next call.
  ASSERT_TRUE(Plan(Request(SmallTask()), &response).ok());
}

TEST_F(PlanTest, EvaluatePlanRecomputesTheFigures) {
  v1::PlanResponse planned;
  ASSERT_TRUE(Plan(Request(SmallTask(5, 2)), &planned).ok());
  v1::EvaluatePlanRequest request;
  *request.mutable_task() = SmallTask(5, 2);
  for (const v1::TableSharding& table : planned.plan().tables()) {
    *request.mutable_plan()->add_tables() = table;  // shards only
  }
  request.mutable_plan()->set_cost_ms(1e9);  // ignored
  v1::EvaluatePlanResponse response;
  grpc::Status status = stub_->EvaluatePlan(Context().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_DOUBLE_EQ(response.plan().cost_ms(), planned.plan().cost_ms());
  EXPECT_EQ(response.plan().devices_size(), 2);
  EXPECT_EQ(response.plan().cost_model(), "analytic@1");

  request.mutable_plan()->mutable_tables(0)->set_table("missing");
  status = stub_->EvaluatePlan(Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("plan.tables[0]"));
}

TEST_F(PlanTest, ListsAlgorithmsAndModels) {
  v1::ListAlgorithmsResponse algorithms;
  ASSERT_TRUE(stub_->ListAlgorithms(Context().get(), {}, &algorithms).ok());
  int defaults = 0;
  bool exhaustive_documented = false;
  for (const v1::AlgorithmInfo& info : algorithms.algorithms()) {
    if (info.is_default()) {
      ++defaults;
      EXPECT_EQ(info.name(), "neuroshard");
    }
    if (info.name() == "exhaustive") {
      exhaustive_documented = info.parameters_size() > 0 &&
                              info.parameters(0).name() == "max_placements" &&
                              info.parameters(0).type() == "int";
    }
  }
  EXPECT_EQ(defaults, 1);
  EXPECT_TRUE(exhaustive_documented);

  v1::ListModelsResponse models;
  ASSERT_TRUE(stub_->ListModels(Context().get(), {}, &models).ok());
  ASSERT_GE(models.models_size(), 1);
  EXPECT_EQ(models.models(0).name(), "analytic");
  EXPECT_EQ(models.models(0).version(), "1");
  EXPECT_TRUE(models.models(0).is_default());
}

}  // namespace
}  // namespace shardplan::integration
