#include "planner/domain/traffic_matrix.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;

// 4 devices on one host, global batch 400 (100 per device); t: 1000 x 64, pooling 2.
Task TrafficFourDevices() {
  Task task = test::MakeTask({MakeTable("t", 1000, 64, 2.0)}, 4, test::kGiB);
  task.batch_size = 400;
  return task;
}

Plan PlanOf(TableSharding sharding) {
  Plan plan;
  plan.tables = {std::move(sharding)};
  return plan;
}

TEST(TrafficMatrixTest, TableWiseSendsPooledOutputsToEveryRequester) {
  const Task task = TrafficFourDevices();
  TableSharding tw = test::ShardingOf(ShardingType::kTableWise);
  tw.shards = {{1, 0, 1000, 0, 64}};
  const absl::StatusOr<LayoutTraffic> traffic = PlanTraffic(task, PlanOf(tw));
  ASSERT_TRUE(traffic.ok()) << traffic.status();
  for (int r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(1, r), 100.0 * 64 * 4);
    EXPECT_DOUBLE_EQ(traffic->backward_all_to_all.at(r, 1), 100.0 * 64 * 4);
    EXPECT_DOUBLE_EQ(traffic->lookups.at(r, 1), 2.0 * 100 * kLookupIdBytes);
  }
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.RowSum(1), 400.0 * 64 * 4);  // B x dim x 4
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.OffDiagonal(), 300.0 * 64 * 4);
  EXPECT_DOUBLE_EQ(traffic->reduce_scatter.RowSum(1), 0.0);
}

TEST(TrafficMatrixTest, ReplicatedHotRowsServeThemselvesAndAllReduce) {
  const Task task = TrafficFourDevices();
  TableSharding hybrid = test::ShardingOf(ShardingType::kRowWise);
  hybrid.row_order = RowOrder::kFrequencyRank;
  for (int32_t d = 0; d < 4; ++d) hybrid.shards.push_back({d, 0, 10, 0, 64});
  hybrid.shards.push_back({2, 10, 990, 0, 64});
  // Zipf-like: the hottest 10 rows take 68% of the lookups.
  const LookupShareOfRows share = [](const Table&, RowOrder order, int64_t begin, int64_t) {
    EXPECT_EQ(order, RowOrder::kFrequencyRank);
    return begin == 0 ? 0.68 : 0.32;
  };
  const absl::StatusOr<LayoutTraffic> traffic = PlanTraffic(task, PlanOf(hybrid), share);
  ASSERT_TRUE(traffic.ok()) << traffic.status();
  const double partial_sums = 100.0 * 64 * 4;
  for (int r = 0; r < 4; ++r) {
    // Hot rows: looked up and reduced on the requester itself.
    EXPECT_DOUBLE_EQ(traffic->lookups.at(r, r), 2.0 * 100 * 0.68 * kLookupIdBytes +
                                                    (r == 2 ? 2.0 * 100 * 0.32 * kLookupIdBytes : 0));
    EXPECT_DOUBLE_EQ(traffic->reduce_scatter.at(2, r),
                     r == 2 ? 2 * partial_sums : partial_sums);  // the cold block too
  }
  EXPECT_DOUBLE_EQ(traffic->reduce_scatter.at(0, 1), 0.0);
  EXPECT_DOUBLE_EQ(traffic->all_gather.at(1, 2), partial_sums);
  // The hot group's gradient: 10 x 64 x 4 bytes, a quarter to each replica.
  for (int from = 0; from < 4; ++from) {
    EXPECT_DOUBLE_EQ(traffic->all_reduce.RowSum(from), 10.0 * 64 * 4);
    EXPECT_DOUBLE_EQ(traffic->all_reduce.at(from, (from + 1) % 4), 10.0 * 64 * 4 / 4);
  }
}

TEST(TrafficMatrixTest, DataParallelOnSomeDevicesRoutesTheOthers) {
  Task task = TrafficFourDevices();
  task.tables[0] = MakeTable("t", 100, 16, 1.0);
  TableSharding dp = test::EvenShards(ShardingType::kDataParallel, {3, 0}, 100, 16);
  dp.routes = {RowRoute{.requester = 2, .shard = 0}};  // device 2 reads device 3's replica
  const absl::StatusOr<LayoutTraffic> traffic = PlanTraffic(task, PlanOf(dp));
  ASSERT_TRUE(traffic.ok()) << traffic.status();
  const double outputs = 100.0 * 16 * 4;
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(0, 1), outputs);  // the lowest replica
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(3, 2), outputs);  // the route
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(0, 0), 0.0);      // self-served: nothing
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(3, 3), 0.0);
  EXPECT_DOUBLE_EQ(traffic->backward_all_to_all.at(1, 0), outputs);
  EXPECT_DOUBLE_EQ(traffic->lookups.at(2, 3), 100.0 * kLookupIdBytes);
  EXPECT_DOUBLE_EQ(traffic->all_reduce.at(0, 3), 100.0 * 16 * 4 / 2);
  EXPECT_DOUBLE_EQ(traffic->all_reduce.RowSum(3), 100.0 * 16 * 4);
  EXPECT_DOUBLE_EQ(traffic->all_reduce.RowSum(1), 0.0);
}

TEST(TrafficMatrixTest, TableRowWiseReducesInItsHostThenCrossesHosts) {
  Task task = test::MakeTask({MakeTable("t", 1000, 64)}, 8, test::kGiB);
  task.topology.devices_per_host = 4;
  task.batch_size = 800;
  const TableSharding twrw = test::EvenShards(ShardingType::kTableRowWise, {4, 5}, 1000, 64);
  const absl::StatusOr<LayoutTraffic> traffic = PlanTraffic(task, PlanOf(twrw));
  ASSERT_TRUE(traffic.ok()) << traffic.status();
  // In the host: 800 / 4 samples' partial sums to each of devices 4-7.
  EXPECT_DOUBLE_EQ(traffic->reduce_scatter.at(4, 7), 200.0 * 64 * 4);
  EXPECT_DOUBLE_EQ(traffic->reduce_scatter.at(4, 0), 0.0);
  // Across: to the same local rank of every host, B / W per host.
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.at(5, 1), 100.0 * 64 * 4);
  EXPECT_DOUBLE_EQ(traffic->forward_all_to_all.RowSum(5), 2 * 100.0 * 64 * 4);
}

TEST(TrafficMatrixTest, NamesAnUnknownTableOrDevice) {
  const Task task = TrafficFourDevices();
  TableSharding tw = test::ShardingOf(ShardingType::kTableWise, "t");
  tw.shards = {{9, 0, 1000, 0, 64}};
  EXPECT_EQ(PlanTraffic(task, PlanOf(tw)).status().message(),
            "tables[0].shards[0].device: device 9 does not exist (topology.num_devices is 4)");
  EXPECT_EQ(PlanTraffic(task, PlanOf(test::ShardingOf(ShardingType::kTableWise, "x")))
                .status()
                .message(),
            "tables[0].table: unknown table \"x\"");
}

}  // namespace
}  // namespace shardplan
