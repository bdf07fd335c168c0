// OPER through the real server with the shipped models: a small Criteo-Kaggle-shaped task (the
// 26 public cardinalities capped at 100,000 rows, dim 16, Zipf 1.05 rows) on 2 hosts x 4
// devices, planned with `--algorithm oper` for inference and for training within a replication
// budget; the plans are routed row layouts costed by analytic@1 and evaluate on the simulator.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;

// Criteo Kaggle's 26 categorical cardinalities (DLRM's day-0..6 preprocessing).
constexpr int64_t kCriteoKaggleCardinalities[] = {
    1460, 583,   10131227, 2202608, 305,  24,   12517, 633,     3,  93145, 5683,   8351593, 3194,
    27,   14992, 5461306,  10,      5652, 2173, 4,     7046547, 18, 15,    286181, 105,     142572};

v1::Task CriteoShapedTask(v1::Objective objective) {
  v1::Task task;
  for (size_t c = 0; c < std::size(kCriteoKaggleCardinalities); ++c) {
    v1::Table* table = task.add_tables();
    table->set_name(absl::StrCat("C", c + 1));
    table->set_rows(std::min<int64_t>(kCriteoKaggleCardinalities[c], 100'000));
    table->set_dim(16);
    table->set_pooling_factor(1);
    table->mutable_access_profile()->mutable_zipf()->set_exponent(1.05);
  }
  v1::Topology* topology = task.mutable_topology();
  topology->set_num_devices(8);
  topology->set_device_memory_gib(40);
  topology->set_devices_per_host(4);
  topology->set_hardware("a100-sxm4-roce");
  task.set_batch_size(8 * 2048);
  task.set_objective(objective);
  task.mutable_replication_budget()->set_extra_gib_per_device(2.0 / 1024);  // 2 MiB
  return task;
}

class OperTest : public ServerTest {
 protected:
  void SetUp() override {
    StartServer({"--models_dir", SHARDPLAN_MODELS_DIR, "--model_reload_interval_s=0"});
  }

  // Plans `task` with oper and checks what every OPER plan is: 26 ROW_WISE tables by rank,
  // costed by analytic@1, with replicas; returns the plan.
  v1::Plan PlanWithOper(const v1::Task& task) {
    v1::PlanRequest request;
    *request.mutable_task() = task;
    request.set_algorithm("oper");
    v1::PlanResponse response;
    const grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    const v1::Plan& plan = response.plan();
    EXPECT_EQ(plan.algorithm(), "oper");
    EXPECT_EQ(plan.cost_model(), "analytic@1");
    EXPECT_EQ(plan.tables_size(), 26);
    for (const v1::TableSharding& table : plan.tables()) {
      EXPECT_EQ(table.sharding_type(), v1::ROW_WISE) << table.table();
      EXPECT_EQ(table.row_layout().row_order(), v1::FREQUENCY_RANK) << table.table();
    }
    EXPECT_GT(std::stoll(plan.parameters().at("copies.replicas")), 0);
    EXPECT_EQ(plan.parameters().at("balance.met"), "true");
    EXPECT_LT(std::stod(plan.parameters().at("comm_us.with_copies")),
              std::stod(plan.parameters().at("comm_us.model_parallel")));
    EXPECT_EQ(plan.devices_size(), 8);
    EXPECT_GT(plan.cost_ms(), 0.0);
    return plan;
  }

  // The plan evaluated on the simulator of the task's cluster, with its access figures.
  v1::EvaluatePlanResponse Measured(const v1::Task& task, const v1::Plan& plan) {
    v1::EvaluatePlanRequest evaluate;
    *evaluate.mutable_task() = task;
    *evaluate.mutable_plan()->mutable_tables() = plan.tables();
    evaluate.set_ground_truth("sim:a100-sxm4-roce");
    v1::EvaluatePlanResponse measured;
    const grpc::Status evaluated = stub_->EvaluatePlan(Context().get(), evaluate, &measured);
    EXPECT_TRUE(evaluated.ok()) << evaluated.error_message();
    EXPECT_EQ(measured.plan().cost_kind(), "ground_truth");
    EXPECT_EQ(measured.plan().devices_size(), 8);
    for (const v1::DeviceCost& device : measured.plan().devices()) {
      EXPECT_LE(device.memory_bytes(), device.memory_capacity_bytes()) << device.device();
    }
    EXPECT_EQ(measured.access_figures().devices_size(), 8);
    EXPECT_EQ(measured.access_figures().communication_us_size(), 64);
    return measured;
  }
};

// The devices holding the hottest rows (the group at rank 0) of the plan's table `name`.
std::set<int32_t> HottestHolders(const v1::Plan& plan, const std::string& name) {
  std::set<int32_t> devices;
  for (const v1::TableSharding& table : plan.tables()) {
    if (table.table() != name) continue;
    for (const v1::Shard& shard : table.shards()) {
      if (shard.row_offset() == 0) devices.insert(shard.device());
    }
  }
  return devices;
}

TEST_F(OperTest, PlansACriteoShapedTaskForInferenceWithReplicasAndRoutes) {
  const v1::Task task = CriteoShapedTask(v1::INFERENCE);
  const v1::Plan plan = PlanWithOper(task);
  // C3 (100,000 rows, its hottest row alone a partition) has its hottest rows on more than one
  // device: Algorithm 1 replicated them where they were fetched most.
  EXPECT_GT(HottestHolders(plan, "C3").size(), 1u);
  const v1::EvaluatePlanResponse measured = Measured(task, plan);
  for (const v1::DeviceCost& device : measured.plan().devices()) {
    EXPECT_EQ(device.backward_comm_ms(), 0.0) << device.device();  // forward only
  }
  // The paper's figures of the plan are the ones the planner reported.
  const double reported = std::stod(plan.parameters().at("comm_us.with_copies"));
  EXPECT_NEAR(measured.access_figures().total_communication_us(), reported, 1e-5 * reported);
  EXPECT_NEAR(measured.access_figures().communication_balance(),
              std::stod(plan.parameters().at("balance.comm")), 1e-5);

  // The same figures for a table-wise plan: whole tables fetched across hosts cost more.
  v1::PlanRequest table_wise;
  *table_wise.mutable_task() = task;
  table_wise.set_algorithm("size_greedy");
  v1::PlanResponse greedy;
  const grpc::Status planned = stub_->Plan(Context().get(), table_wise, &greedy);
  ASSERT_TRUE(planned.ok()) << planned.error_message();
  const v1::EvaluatePlanResponse greedy_figures = Measured(task, greedy.plan());
  EXPECT_GT(greedy_figures.access_figures().total_communication_us(), 2 * reported);
}

TEST_F(OperTest, PlansACriteoShapedTaskForTrainingWithHotPartitionsOnEveryDevice) {
  const v1::Task task = CriteoShapedTask(v1::TRAINING);
  const v1::Plan plan = PlanWithOper(task);
  EXPECT_THAT(plan.parameters().at("duplication.frequency"), ::testing::Not(""));
  EXPECT_EQ(HottestHolders(plan, "C3").size(), 8u);  // duplicated: Eq. 4-5
  for (const v1::TableSharding& table : plan.tables()) {
    EXPECT_EQ(table.row_layout().routes_size(), 0) << table.table();  // each reads its own
  }
  const v1::EvaluatePlanResponse measured = Measured(task, plan);
  for (const v1::DeviceCost& device : measured.plan().devices()) {
    EXPECT_GT(device.backward_comm_ms(), 0.0) << device.device();  // gradients, all-reduces
  }
}

TEST_F(OperTest, EvaluateWithoutAModelChoosesOneThatCostsItsRoutedLayouts) {
  // The newest model of this hardware is a learned one, which costs no routed row layout: the
  // server's choice for this plan passes it over, saying why.
  v1::Task task = CriteoShapedTask(v1::TRAINING);  // the learned models cost training steps
  task.mutable_topology()->set_hardware("h100-sxm");
  const v1::Plan plan = PlanWithOper(task);
  v1::EvaluatePlanRequest evaluate;
  *evaluate.mutable_task() = task;
  *evaluate.mutable_plan()->mutable_tables() = plan.tables();
  v1::EvaluatePlanResponse response;
  const grpc::Status evaluated = stub_->EvaluatePlan(Context().get(), evaluate, &response);
  ASSERT_TRUE(evaluated.ok()) << evaluated.error_message();
  EXPECT_EQ(response.plan().cost_model(), "analytic@1");
  EXPECT_THAT(response.plan().selection(), HasSubstr("cannot cost the row layout"));
  EXPECT_NEAR(response.plan().cost_ms(), plan.cost_ms(), 1e-9 * plan.cost_ms());
}

}  // namespace
}  // namespace shardplan::integration
