// A table larger than every device (examples/task_huge_table.json: 30 GiB at dim 4 on eight
// 16 GiB devices) through the real server with the shipped models: the default request plans it
// with row shards and says which algorithm, model and hardware it chose and why; requests that
// name what cannot hold it are refused naming what would; the task's hardware is checked.
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kHugeTable[] = "user_id_hashed";

v1::PlanRequest HugeTableRequest() {
  std::ifstream in(std::string(SHARDPLAN_EXAMPLES_DIR) + "/task_huge_table.json");
  std::stringstream text;
  text << in.rdbuf();
  v1::PlanRequest request;
  const auto parsed =
      google::protobuf::util::JsonStringToMessage(text.str(), request.mutable_task());
  EXPECT_TRUE(parsed.ok()) << parsed.ToString();
  return request;
}

class HugeTableTest : public ServerTest {
 protected:
  void SetUp() override {
    StartServer({"--models_dir", SHARDPLAN_MODELS_DIR, "--model_reload_interval_s=0"});
  }

  // Plans `request` and checks the answer is a valid plan holding the huge table in row shards.
  v1::Plan PlanWithRowShards(const v1::PlanRequest& request) {
    v1::PlanResponse response;
    const grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    const v1::Plan& plan = response.plan();
    EXPECT_EQ(plan.tables_size(), 4);
    for (const v1::TableSharding& table : plan.tables()) {
      if (table.table() != kHugeTable) continue;
      EXPECT_THAT(table.sharding_type(), AnyOf(v1::ROW_WISE, v1::TABLE_ROW_WISE));
      EXPECT_GT(table.shards_size(), 1);
    }
    for (const v1::DeviceCost& device : plan.devices()) {
      EXPECT_LE(device.memory_bytes(), device.memory_capacity_bytes()) << device.device();
    }
    return plan;
  }
};

TEST_F(HugeTableTest, TheDefaultRequestPlansItAndSaysWhatItAssumed) {
  const v1::Plan plan = PlanWithRowShards(HugeTableRequest());
  EXPECT_THAT(plan.selection(), HasSubstr("model: " + plan.cost_model()));
  if (plan.cost_model() == "analytic@1") {
    // No shipped neural model costs row shards: why each was passed over.
    EXPECT_THAT(plan.selection(), HasSubstr("as no loaded model that covers 8 devices can cost "
                                            "the task ("));
    EXPECT_THAT(plan.selection(), HasSubstr("cannot cost ROW_WISE or TABLE_ROW_WISE shards"));
  } else {  // a neural model that costs them, of the hardware it says
    EXPECT_THAT(plan.selection(), HasSubstr("the task names no hardware, so its costs assume "));
    bool warned = false;
    for (const v1::PlanWarning& warning : plan.warnings()) {
      warned = warned || warning.code() == "HARDWARE_ASSUMED";
    }
    EXPECT_TRUE(warned);
  }
  if (plan.algorithm() != "neuroshard") {  // until NeuroShard places row shards
    EXPECT_THAT(plan.selection(),
                StartsWith("algorithm: " + plan.algorithm() +
                           ", as the server's default neuroshard cannot plan the task (task is "
                           "infeasible for neuroshard: table \"user_id_hashed\" needs 30.00 GiB "
                           "but the largest device (device 0) holds 16.00 GiB, only ROW_WISE or "
                           "TABLE_ROW_WISE shards would hold it"));
  }

  // The same task on named hardware: a model of that hardware when one can cost the task.
  v1::PlanRequest rtx = HugeTableRequest();
  rtx.mutable_task()->mutable_topology()->set_hardware("rtx2080ti");
  const v1::Plan on_rtx = PlanWithRowShards(rtx);
  EXPECT_THAT(on_rtx.cost_model(), AnyOf("analytic@1", StartsWith("sim-rtx2080ti@")));
  EXPECT_THAT(on_rtx.selection(), HasSubstr("covers 8 devices of rtx2080ti"));
  for (const v1::PlanWarning& warning : on_rtx.warnings()) {
    EXPECT_NE(warning.code(), "HARDWARE_ASSUMED");
  }
}

TEST_F(HugeTableTest, WhatCannotHoldItIsRefusedNamingWhatWould) {
  v1::PlanRequest whole = HugeTableRequest();
  whole.set_algorithm("size_greedy");
  v1::PlanResponse response;
  grpc::Status status = Plan(whole, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              StartsWith("task is infeasible for size_greedy: table \"user_id_hashed\" needs "
                         "30.00 GiB but the largest device (device 0) holds 16.00 GiB; only "
                         "ROW_WISE or TABLE_ROW_WISE shards would hold it, and size_greedy does "
                         "not place ROW_WISE or TABLE_ROW_WISE shards (it places TABLE_WISE); "
                         "these would plan it: "));
  EXPECT_THAT(status.error_message(), HasSubstr("--algorithm torchrec (ROW_WISE, TABLE_ROW_WISE) "
                                                "under --model analytic@1"));

  // A named model that cannot cost row shards: never a silent drop of the row types.
  v1::PlanRequest column_model = HugeTableRequest();
  column_model.set_algorithm("torchrec");
  column_model.set_model("sim-h100-sxm@5");
  status = Plan(column_model, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("only ROW_WISE or TABLE_ROW_WISE shards would hold it, and cost model "
                        "sim-h100-sxm@5 cannot cost ROW_WISE or TABLE_ROW_WISE shards; these "
                        "would plan it: "));

  v1::PlanRequest unknown = HugeTableRequest();
  unknown.mutable_task()->mutable_topology()->set_hardware("tpu-v5");
  status = Plan(unknown, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              StartsWith("task.topology.hardware: unknown hardware \"tpu-v5\"; known: "
                         "a100-sxm4, a100-sxm4-roce, cpu-amd-epyc, h100-sxm, rtx2080ti"));
}

}  // namespace
}  // namespace shardplan::integration
