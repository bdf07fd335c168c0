#include "planner/algorithms/flexshard/flexshard_inputs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/topology.h"

namespace shardplan::flexshard {
namespace {

// The worked case as a task: 32 devices of 40 GiB in hosts of 8, the global batch of 4096 per
// device, one sequence table with a Zipf(1) profile.
Task WorkedCaseTask() {
  Task task;
  Table table{.name = "history", .rows = 10'000'000, .dim = 256, .pooling_factor = 500};
  table.pooling = Pooling::kSequence;
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  task.tables = {table};
  task.topology.memory_bytes.assign(32, int64_t{40} << 30);
  task.topology.devices_per_host = 8;
  task.topology.inter_host_bandwidth_gibps = 200e9 / 8 / kBytesPerGiB;
  task.topology.intra_host_bandwidth_gibps = 300e9 / kBytesPerGiB;
  task.topology.all_reduce_bandwidth_gibps = 3 * 200e9 / 8 / kBytesPerGiB;
  task.batch_size = 4096 * 32;
  return task;
}

TEST(FlexShardInputsTest, ATaskGivesTheWorkedCase) {
  absl::StatusOr<TaskTierInputs> inputs = TierInputsOf(WorkedCaseTask());
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->inputs.hosts, 4);
  EXPECT_EQ(inputs->inputs.devices_per_host, 8);
  EXPECT_EQ(inputs->inputs.local_batch, 4096);
  EXPECT_EQ(inputs->inputs.memory_budget_bytes, 0.0);
  absl::StatusOr<TierResult> tiers = ComputeTiers(inputs->inputs);
  ASSERT_TRUE(tiers.ok()) << tiers.status();
  EXPECT_EQ(tiers->points[0].dp_rows, 20'551);
  EXPECT_EQ(tiers->two_tier.dp.rows, 268'796);
  EXPECT_EQ(tiers->three_tier.flex.rows, 1'622'723);
}

TEST(FlexShardInputsTest, TheBudgetIsOnTheSmallestDevice) {
  Task task = WorkedCaseTask();
  task.replication_budget.capacity_fraction = 0.5;
  task.topology.memory_bytes[3] = int64_t{20} << 30;
  absl::StatusOr<TaskTierInputs> inputs = TierInputsOf(task);
  ASSERT_TRUE(inputs.ok());
  EXPECT_EQ(inputs->inputs.memory_budget_bytes, static_cast<double>(int64_t{10} << 30));
}

TEST(FlexShardInputsTest, AShortLastHostIsRefused) {
  Task task = WorkedCaseTask();
  task.topology.memory_bytes.resize(30);
  EXPECT_THAT(std::string(TierInputsOf(task).status().message()),
              testing::StartsWith("topology.devices_per_host: FlexShard's Flex tier needs"));
}

}  // namespace
}  // namespace shardplan::flexshard
