// PlannerClient's synchronous calls against the real server: plan, cache, evaluate, catalogue,
// health, and the error codes and messages that reach the caller.
#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "client/shardplan_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/client/client_test_support.h"

namespace shardplan::testing {
namespace {

using ::shardplan::client::CallOptions;
using ::shardplan::client::HealthStatus;
using ::testing::HasSubstr;

class ClientTest : public ServerClientTest {};

shardplan::v1::PlanRequest RequestFor(shardplan::v1::Task task) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = std::move(task);
  return request;
}

// Every task table exactly once, whole, on existing devices (a DATA_PARALLEL table once per
// replica); cost = the bottleneck's total.
void ExpectPlanCoversTask(const shardplan::v1::Plan& plan, const shardplan::v1::Task& task) {
  std::map<std::string, const shardplan::v1::Table*> tables;
  for (const auto& table : task.tables()) tables[table.name()] = &table;
  ASSERT_EQ(plan.tables_size(), task.tables_size());
  for (const auto& sharding : plan.tables()) {
    auto it = tables.find(sharding.table());
    ASSERT_NE(it, tables.end()) << "unknown table " << sharding.table();
    int64_t elements = 0;
    for (const auto& shard : sharding.shards()) {
      EXPECT_GE(shard.device(), 0);
      EXPECT_LT(shard.device(), task.topology().num_devices());
      elements += shard.row_count() * shard.column_count();
    }
    const int64_t copies = sharding.sharding_type() == shardplan::v1::DATA_PARALLEL
                               ? task.topology().num_devices()
                               : 1;
    EXPECT_EQ(elements, copies * it->second->rows() * it->second->dim()) << sharding.table();
    tables.erase(it);
  }
  EXPECT_TRUE(tables.empty());
  ASSERT_EQ(plan.devices_size(), task.topology().num_devices());
  double max_total = 0;
  for (const auto& device : plan.devices()) {
    EXPECT_LE(device.memory_bytes(), device.memory_capacity_bytes()) << device.device();
    max_total = std::max(max_total, device.total_ms());
  }
  EXPECT_GT(plan.cost_ms(), 0);
  EXPECT_DOUBLE_EQ(plan.cost_ms(), max_total);
  EXPECT_DOUBLE_EQ(plan.devices(plan.bottleneck_device()).total_ms(), max_total);
}

TEST_F(ClientTest, PlanUsesDefaultAlgorithmAndModel) {
  const shardplan::v1::Task task = ExampleTask("task_4dev.json");
  auto response = client_->Plan(RequestFor(task));
  ASSERT_TRUE(response.ok()) << response.status();
  ExpectPlanCoversTask(response->plan(), task);
  EXPECT_EQ(response->plan().algorithm(), "neuroshard");
  EXPECT_EQ(response->plan().cost_model(), "analytic@1");  // this server loads no bundles
  EXPECT_EQ(response->plan().cost_kind(), "simulated");
  EXPECT_THAT(response->plan().selection(), HasSubstr("the server's default"));
}

TEST_F(ClientTest, PlanWithEachBaselineOnEightDevices) {
  const shardplan::v1::Task task = ExampleTask("task_8dev.json");
  for (const std::string algorithm :
       {"random", "size_greedy", "dim_greedy", "lookup_greedy", "size_lookup_greedy"}) {
    SCOPED_TRACE(algorithm);
    shardplan::v1::PlanRequest request = RequestFor(task);
    request.set_algorithm(algorithm);
    auto response = client_->Plan(request);
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(response->plan().algorithm(), algorithm);
    ExpectPlanCoversTask(response->plan(), task);
  }
}

TEST_F(ClientTest, ReorderedIdenticalTaskHitsTheCache) {
  shardplan::v1::PlanRequest request = RequestFor(ExampleTask("task_4dev.json"));
  request.set_seed(424242);  // a request no other test makes
  auto first = client_->Plan(request);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->cache_hit());

  auto* tables = request.mutable_task()->mutable_tables();
  std::reverse(tables->begin(), tables->end());
  auto second = client_->Plan(request);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->cache_hit());
  EXPECT_EQ(second->plan().request_hash(), first->plan().request_hash());
  EXPECT_DOUBLE_EQ(second->plan().cost_ms(), first->plan().cost_ms());

  request.set_bypass_cache(true);
  auto third = client_->Plan(request);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_FALSE(third->cache_hit());
}

TEST_F(ClientTest, InvalidTaskIsInvalidArgumentNamingTheField) {
  shardplan::v1::Task task = SmallTask(3, 2);
  task.mutable_tables(1)->set_dim(6);
  auto response = client_->Plan(RequestFor(task));
  ASSERT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument) << response.status();
  EXPECT_THAT(response.status().message(), HasSubstr("tables[1].dim"));
}

TEST_F(ClientTest, InfeasibleTaskIsFailedPreconditionNamingTheTable) {
  shardplan::v1::Task task = SmallTask(2, 2);
  task.mutable_tables(0)->set_rows(int64_t{1} << 32);
  task.mutable_tables(0)->set_dim(128);
  auto response = client_->Plan(RequestFor(task));
  ASSERT_EQ(response.status().code(), absl::StatusCode::kFailedPrecondition) << response.status();
  EXPECT_THAT(response.status().message(), HasSubstr("t0"));
}

TEST_F(ClientTest, UnknownModelIsNotFound) {
  shardplan::v1::PlanRequest request = RequestFor(SmallTask(3, 2));
  request.set_model("no_such_model");
  auto response = client_->Plan(request);
  ASSERT_EQ(response.status().code(), absl::StatusCode::kNotFound) << response.status();
  EXPECT_THAT(response.status().message(), HasSubstr("no_such_model"));
}

TEST_F(ClientTest, ReloadModelsReportsTheScan) {
  // The fixture's server has the default models_dir ("models"), absent here: an empty scan.
  auto report = client_->ReloadModels();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->loaded_size(), 0);
  EXPECT_EQ(report->refused_size(), 0);
}

TEST_F(ClientTest, SlowPlanPastItsDeadlineIsDeadlineExceeded) {
  CallOptions call;
  call.timeout = absl::Milliseconds(300);
  auto response = client_->Plan(SlowRequest(), call);
  EXPECT_EQ(response.status().code(), absl::StatusCode::kDeadlineExceeded) << response.status();
  // The server is still fine afterwards.
  auto health = client_->Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthStatus::kServing);
}

TEST_F(ClientTest, EvaluateRecomputesTheFiguresOfAPlan) {
  const shardplan::v1::Task task = ExampleTask("task_4dev.json");
  auto planned = client_->Plan(RequestFor(task));
  ASSERT_TRUE(planned.ok()) << planned.status();

  // Only the shards travel: every figure must come back from the server.
  shardplan::v1::EvaluatePlanRequest request;
  *request.mutable_task() = task;
  for (const auto& sharding : planned->plan().tables())
    *request.mutable_plan()->add_tables() = sharding;
  auto evaluated = client_->EvaluatePlan(request);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  ExpectPlanCoversTask(evaluated->plan(), task);
  EXPECT_NEAR(evaluated->plan().cost_ms(), planned->plan().cost_ms(),
              1e-9 * planned->plan().cost_ms());
  EXPECT_EQ(evaluated->plan().bottleneck_device(), planned->plan().bottleneck_device());
}

TEST_F(ClientTest, ReportMeasurementComparesTheModelWithTheMeasuredStep) {
  const shardplan::v1::Task task = ExampleTask("task_4dev.json");
  auto planned = client_->Plan(RequestFor(task));
  ASSERT_TRUE(planned.ok()) << planned.status();
  shardplan::v1::ReportMeasurementRequest request;
  *request.mutable_task() = task;
  *request.mutable_plan() = planned->plan();  // its cost_model names the version checked
  for (const auto& device : planned->plan().devices()) {
    request.add_device_ms(device.total_ms() / 2);  // twice as fast as predicted
  }
  auto report = client_->ReportMeasurement(request);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->cost_model(), planned->plan().cost_model());
  EXPECT_NEAR(report->predicted_ms(), planned->plan().cost_ms(), 1e-9 * report->predicted_ms());
  EXPECT_EQ(report->predicted_device_ms_size(), 4);
  EXPECT_EQ(report->reports(), 1);
  EXPECT_GT(report->relative_error(), 0.0);  // predicted more than measured
  request.clear_device_ms();
  request.add_device_ms(1.0);
  EXPECT_EQ(client_->ReportMeasurement(request).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ClientTest, EvaluateRejectsAPlanThatMissesATable) {
  const shardplan::v1::Task task = SmallTask(3, 2);
  shardplan::v1::EvaluatePlanRequest request;
  *request.mutable_task() = task;
  for (int i = 0; i < 2; ++i) {  // t2 is missing
    auto* sharding = request.mutable_plan()->add_tables();
    sharding->set_table(task.tables(i).name());
    sharding->set_sharding_type(shardplan::v1::TABLE_WISE);
    auto* shard = sharding->add_shards();
    shard->set_device(i);
    shard->set_row_count(task.tables(i).rows());
    shard->set_column_count(task.tables(i).dim());
  }
  auto evaluated = client_->EvaluatePlan(request);
  ASSERT_EQ(evaluated.status().code(), absl::StatusCode::kInvalidArgument) << evaluated.status();
  EXPECT_THAT(evaluated.status().message(), HasSubstr("t2"));
}

TEST_F(ClientTest, ListAlgorithmsHasTheBaselinesAndOneDefault) {
  auto response = client_->ListAlgorithms();
  ASSERT_TRUE(response.ok()) << response.status();
  std::map<std::string, bool> is_default;
  for (const auto& algorithm : response->algorithms()) {
    is_default[algorithm.name()] = algorithm.is_default();
  }
  for (const std::string name : {"random", "size_greedy", "dim_greedy", "lookup_greedy",
                                 "size_lookup_greedy", "exhaustive", "neuroshard", "torchrec"}) {
    EXPECT_TRUE(is_default.count(name)) << name;
  }
  EXPECT_EQ(std::count_if(is_default.begin(), is_default.end(),
                          [](const auto& entry) { return entry.second; }),
            1);
  EXPECT_TRUE(is_default["neuroshard"]);
}

TEST_F(ClientTest, ListModelsHasTheAnalyticModel) {
  auto response = client_->ListModels();
  ASSERT_TRUE(response.ok()) << response.status();
  bool found = false;
  for (const auto& model : response->models()) {
    if (model.name() == "analytic" && model.version() == "1") {
      found = true;
      EXPECT_EQ(model.kind(), "analytic");
      EXPECT_TRUE(model.is_default());
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ClientTest, HealthIsServing) {
  auto health = client_->Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthStatus::kServing);
  EXPECT_EQ(client::HealthStatusName(*health), "SERVING");
}

}  // namespace
}  // namespace shardplan::testing
