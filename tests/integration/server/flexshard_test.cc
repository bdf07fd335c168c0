// FlexShard through the real server with the shipped models (examples/task_flexshard_worked_case
// .json: the notes' worked case, E = 10M, L = 500, Zipf 1.0, 4 x 8 A100, B = 4096 per GPU): the
// plan is the paper's tiers to the row, costed by a model that costs routed layouts (no named
// model: the server chooses one and says why), and evaluates on the simulator of FlexShard's
// cluster; a learned model refuses it by table.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

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

// The sequence table's all-to-all buffers are reported beside the ledger; where the two together
// pass a device's capacity the plan stands, with a warning that says so.
TEST_F(FlexShardTest, SequenceBuffersPastCapacityAreWarnedNotRefused) {
  v1::PlanRequest request;
  *request.mutable_task() = WorkedCase();
  request.mutable_task()->mutable_topology()->set_device_memory_gib(1.5);
  request.set_algorithm("flexshard");
  v1::PlanResponse response;
  const grpc::Status status = Plan(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  bool over = false;
  for (const v1::DeviceCost& device : response.plan().devices()) {
    EXPECT_GT(device.sequence_buffer_bytes(), 0) << device.device();
    EXPECT_LE(device.memory_bytes(), device.memory_capacity_bytes()) << device.device();
    over = over ||
           device.memory_bytes() + device.sequence_buffer_bytes() > device.memory_capacity_bytes();
  }
  ASSERT_TRUE(over) << "the test wants buffers past 1.5 GiB";
  ASSERT_EQ(response.plan().warnings_size(), 1);
  EXPECT_EQ(response.plan().warnings(0).code(), "SEQUENCE_BUFFERS");
  EXPECT_THAT(response.plan().warnings(0).message(), HasSubstr("all-to-all needs"));
}

// A client that sends its rank -> id map for the top K gets the ids of the replicated ranks
// back, in rank order, and a warning naming the field when the replicated ranks reach past K.
TEST_F(FlexShardTest, TopIdsComeBackForTheReplicatedRanks) {
  v1::Task task = WorkedCase();
  v1::Table& history = *task.mutable_tables(0);
  history.set_rows(1'000'000);
  // Zipf(1)-shaped counts for the top 5,000 ranks; rank r is id 999,999 - 7r.
  v1::AccessProfile::TopK* top_k = history.mutable_access_profile()->mutable_top_k();
  for (int r = 0; r < 5'000; ++r) {
    top_k->add_top_counts(1.0 / (r + 1));
    top_k->add_top_ids(999'999 - 7 * r);
  }
  top_k->set_tail_count(1.0 / 5'001 * 995'000 / 3);  // a flatter tail, under the last count
  v1::PlanRequest request;
  *request.mutable_task() = task;
  request.set_algorithm("flexshard");
  v1::PlanResponse response;
  const grpc::Status status = Plan(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::TableSharding& planned = response.plan().tables(0);
  std::map<std::pair<int64_t, int64_t>, int> replicas;
  for (const v1::Shard& shard : planned.shards()) {
    ++replicas[{shard.row_offset(), shard.row_count()}];
  }
  int64_t replicated_end = 0;
  for (const auto& [range, count] : replicas) {
    if (count > 1) replicated_end = std::max(replicated_end, range.first + range.second);
  }
  ASSERT_GT(replicated_end, 5'000) << "the test wants more replicated ranks than ids";
  ASSERT_EQ(planned.row_layout().hot_row_ids_size(), 5'000);
  for (int r = 0; r < 5'000; r += 997) {
    EXPECT_EQ(planned.row_layout().hot_row_ids(r), 999'999 - 7 * r) << r;
  }
  ASSERT_EQ(response.plan().warnings_size(), 1);
  EXPECT_EQ(response.plan().warnings(0).code(), "HOT_ROW_IDS_INCOMPLETE");
  EXPECT_EQ(response.plan().warnings(0).field(), "task.tables[0].access_profile.top_k.top_ids");

  // Without ids the plan is the same and carries none.
  request.mutable_task()
      ->mutable_tables(0)
      ->mutable_access_profile()
      ->mutable_top_k()
      ->clear_top_ids();
  v1::PlanResponse without;
  ASSERT_TRUE(Plan(request, &without).ok());
  EXPECT_EQ(without.plan().tables(0).row_layout().hot_row_ids_size(), 0);
  EXPECT_EQ(without.plan().tables(0).shards_size(), planned.shards_size());
  EXPECT_EQ(without.plan().warnings_size(), 0);
}

}  // namespace
}  // namespace shardplan::integration
