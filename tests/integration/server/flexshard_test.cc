// FlexShard through the real server with the shipped models (examples/task_flexshard_worked_case
// .json: the notes' worked case, E = 10M, L = 500, Zipf 1.0, 4 x 8 A100, B = 4096 per GPU): the
// plan is the paper's tiers to the row, costed by a model that costs routed layouts (no named
// model: the server chooses one and says why), and evaluates on the simulator of FlexShard's
// cluster; a learned model refuses it by table.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;

v1::Task WorkedCase() {
  std::ifstream in(std::string(SHARDPLAN_EXAMPLES_DIR) + "/task_flexshard_worked_case.json");
  std::stringstream text;
  text << in.rdbuf();
  v1::Task task;
  const auto parsed = google::protobuf::util::JsonStringToMessage(text.str(), &task);
  EXPECT_TRUE(parsed.ok()) << parsed.ToString();
  return task;
}

class FlexShardTest : public ServerTest {
 protected:
  void SetUp() override {
    StartServer({"--models_dir", SHARDPLAN_MODELS_DIR, "--model_reload_interval_s=0"});
  }
};

TEST_F(FlexShardTest, PlansTheWorkedCaseToTheRowAndEvaluatesItOnGroundTruth) {
  v1::PlanRequest request;
  *request.mutable_task() = WorkedCase();
  request.set_algorithm("flexshard");
  v1::PlanResponse response;
  const grpc::Status status = Plan(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::Plan& plan = response.plan();
  EXPECT_EQ(plan.algorithm(), "flexshard");
  EXPECT_EQ(plan.cost_model(), "analytic@1");
  // No model of FlexShard's cluster is loaded, and only analytic@1 and the simulator cost routed
  // layouts: the server's choice says so.
  EXPECT_THAT(plan.selection(), HasSubstr("model: analytic@1"));
  EXPECT_EQ(plan.parameters().at("tier.dp.rows"), "20551");
  EXPECT_EQ(plan.parameters().at("tier.flex.rows"), "1622723");
  ASSERT_EQ(plan.tables_size(), 1);
  const v1::TableSharding& history = plan.tables(0);
  EXPECT_EQ(history.sharding_type(), v1::ROW_WISE);
  EXPECT_EQ(history.row_layout().row_order(), v1::FREQUENCY_RANK);
  EXPECT_THAT(history.row_layout().rank_bands(), ::testing::ElementsAre(20'551, 1'643'274));
  // Replicas per rank range: DP on all 32, each Flex slice on 4 (one per host), RW blocks alone.
  std::map<int64_t, std::set<int32_t>> devices_of_range;
  int64_t flex_rows = 0;
  for (const v1::Shard& shard : history.shards()) {
    devices_of_range[shard.row_offset()].insert(shard.device());
  }
  EXPECT_EQ(devices_of_range.at(0).size(), 32u);
  for (const auto& [offset, devices] : devices_of_range) {
    if (offset >= 20'551 && offset < 1'643'274) {
      EXPECT_EQ(devices.size(), 4u) << offset;
      std::set<int32_t> local_ranks;
      for (int32_t d : devices) local_ranks.insert(d % 8);
      EXPECT_EQ(local_ranks.size(), 1u) << offset;  // one local rank, every host
    } else if (offset >= 1'643'274) {
      EXPECT_EQ(devices.size(), 1u) << offset;
    }
  }
  for (const v1::Shard& shard : history.shards()) {
    if (shard.row_offset() >= 20'551 && shard.row_offset() < 1'643'274 && shard.device() < 8) {
      flex_rows += shard.row_count();
    }
  }
  EXPECT_EQ(flex_rows, 1'622'723);
  EXPECT_EQ(plan.devices_size(), 32);
  EXPECT_GT(plan.cost_ms(), 0.0);

  // On the simulator of FlexShard's cluster.
  v1::EvaluatePlanRequest evaluate;
  *evaluate.mutable_task() = WorkedCase();
  *evaluate.mutable_plan()->add_tables() = history;
  evaluate.set_ground_truth("sim:a100-sxm4-roce");
  v1::EvaluatePlanResponse measured;
  grpc::Status evaluated = stub_->EvaluatePlan(Context().get(), evaluate, &measured);
  ASSERT_TRUE(evaluated.ok()) << evaluated.error_message();
  EXPECT_EQ(measured.plan().cost_kind(), "ground_truth");
  EXPECT_EQ(measured.plan().cost_model(), "sim-a100-sxm4-roce");
  ASSERT_EQ(measured.plan().devices_size(), 32);
  for (const v1::DeviceCost& device : measured.plan().devices()) {
    EXPECT_GT(device.forward_comm_ms(), 0.0) << device.device();  // the RW and Flex exchanges
    EXPECT_GT(device.backward_comm_ms(), device.forward_comm_ms()) << device.device();  // + ARs
    EXPECT_LE(device.memory_bytes(), device.memory_capacity_bytes()) << device.device();
  }

  // A learned model was never trained on sequence tables or replicated rows: refused, naming
  // the table.
  evaluate.clear_ground_truth();
  evaluate.set_model("sim-h100-sxm");
  evaluated = stub_->EvaluatePlan(Context().get(), evaluate, &measured);
  EXPECT_EQ(evaluated.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(evaluated.error_message(), HasSubstr("\"history\""));
}

}  // namespace
}  // namespace shardplan::integration
