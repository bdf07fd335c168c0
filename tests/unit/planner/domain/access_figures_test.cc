// OPER's figures (Eqs. 1-3) of plans of every sharding type, on cases checked by hand.
#include "planner/domain/access_figures.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;

// One table of 1,000 rows x 8 columns (fp32: 32 bytes a row), pooling 2, on two devices of one
// host with a per-fetch cost of 3 us between them; 100 samples a step: 50 per device, each
// device looking up 100 rows of the table per iteration.
Task TwoDeviceTask() {
  Task task = test::MakeTask({test::MakeTable("t", 1000, 8, 2)}, 2, test::kGiB);
  task.batch_size = 100;
  task.topology.fetch_cost_us = {0, 3, 3, 0};
  return task;
}

Plan OneTablePlan(TableSharding sharding) {
  Plan plan;
  plan.tables.push_back(std::move(sharding));
  return plan;
}

TEST(AccessFiguresTest, ATableOnOneDeviceServesEveryLookupAndTheOtherFetchesItsShare) {
  const Task task = TwoDeviceTask();
  TableSharding table_wise = test::ShardingOf(ShardingType::kTableWise);
  table_wise.shards.push_back({1, 0, 1000, 0, 8});
  absl::StatusOr<AccessFigures> figures = AccessFiguresOf(task, OneTablePlan(table_wise));
  ASSERT_TRUE(figures.ok()) << figures.status();
  EXPECT_THAT(figures->lookups, ElementsAre(0, 200));
  EXPECT_THAT(figures->lookup_bytes, ElementsAre(0, 200 * 32));
  EXPECT_EQ(figures->memory_bytes[0], 0);
  EXPECT_GT(figures->memory_bytes[1], 0);
  // Device 0 fetches its 100 rows from device 1 at 3 us each; device 1's are local.
  EXPECT_THAT(figures->communication_us, ElementsAre(0, 300, 0, 0));
  EXPECT_THAT(figures->fetch_us, ElementsAre(300, 0));
  EXPECT_THAT(figures->serve_us, ElementsAre(0, 300));
  EXPECT_THAT(figures->fetch_bytes, ElementsAre(100 * 32, 0));
  EXPECT_DOUBLE_EQ(figures->total_communication_us, 300);
  EXPECT_DOUBLE_EQ(figures->total_fetch_bytes, 100 * 32);
  EXPECT_DOUBLE_EQ(figures->memory_balance, 0.0);
  EXPECT_DOUBLE_EQ(figures->lookup_balance, 0.0);
  EXPECT_DOUBLE_EQ(figures->communication_balance, 0.0);
}

TEST(AccessFiguresTest, AColumnSplitIsFetchedFromEveryColumnShard) {
  const Task task = TwoDeviceTask();
  TableSharding column_wise = test::ShardingOf(ShardingType::kColumnWise);
  column_wise.shards.push_back({0, 0, 1000, 0, 4});
  column_wise.shards.push_back({1, 0, 1000, 4, 4});
  absl::StatusOr<AccessFigures> figures = AccessFiguresOf(task, OneTablePlan(column_wise));
  ASSERT_TRUE(figures.ok()) << figures.status();
  // Each device looks up every row of its half of the columns for both devices.
  EXPECT_THAT(figures->lookups, ElementsAre(200, 200));
  EXPECT_THAT(figures->lookup_bytes, ElementsAre(200 * 16, 200 * 16));
  EXPECT_THAT(figures->communication_us, ElementsAre(0, 300, 300, 0));
  EXPECT_DOUBLE_EQ(figures->communication_balance, 1.0);
  EXPECT_DOUBLE_EQ(figures->lookup_balance, 1.0);
}

TEST(AccessFiguresTest, RowsFollowTheirShareAndTheRoutes) {
  Task task = TwoDeviceTask();
  // Zipf ranks: the first 100 rows serve far more than a tenth of the lookups.
  task.tables[0].access_profile.zipf = ZipfAccessProfile{.exponent = 1.1};
  TableSharding row_wise = test::ShardingOf(ShardingType::kRowWise);
  row_wise.row_order = RowOrder::kFrequencyRank;
  row_wise.shards.push_back({0, 0, 100, 0, 8});
  row_wise.shards.push_back({1, 100, 900, 0, 8});
  absl::StatusOr<AccessFigures> figures = AccessFiguresOf(task, OneTablePlan(row_wise));
  ASSERT_TRUE(figures.ok()) << figures.status();
  const double hot = figures->lookups[0];
  EXPECT_GT(hot, 0.5 * 200);
  EXPECT_NEAR(hot + figures->lookups[1], 200, 1e-9);
  // Device 0 fetches its cold rows from 1, device 1 its hot rows from 0.
  EXPECT_NEAR(figures->communication(0, 1), (100 - hot / 2) * 3, 1e-9);
  EXPECT_NEAR(figures->communication(1, 0), hot / 2 * 3, 1e-9);

  // A replica of the hot rows on device 1 serves device 1 locally.
  row_wise.shards.push_back({1, 0, 100, 0, 8});
  absl::StatusOr<AccessFigures> replicated = AccessFiguresOf(task, OneTablePlan(row_wise));
  ASSERT_TRUE(replicated.ok()) << replicated.status();
  EXPECT_DOUBLE_EQ(replicated->communication(1, 0), 0.0);
  EXPECT_NEAR(replicated->lookups[1], 200 - hot / 2, 1e-9);
  // A route sends device 0 to device 1's copy.
  row_wise.routes.push_back({.requester = 0, .shard = 2});
  absl::StatusOr<AccessFigures> routed = AccessFiguresOf(task, OneTablePlan(row_wise));
  ASSERT_TRUE(routed.ok()) << routed.status();
  EXPECT_DOUBLE_EQ(routed->lookups[0], 0.0);
  EXPECT_NEAR(routed->fetch_us[0], 100 * 3, 1e-9);
}

TEST(AccessFiguresTest, DataParallelReplicasFetchNothingAndTheLinksPriceByBytes) {
  Task task = TwoDeviceTask();
  task.topology.fetch_cost_us.clear();  // the links: 32 bytes at 600 GiB/s
  const TableSharding replicas = test::EvenShards(ShardingType::kDataParallel, {0, 1}, 1000, 8);
  absl::StatusOr<AccessFigures> figures = AccessFiguresOf(task, OneTablePlan(replicas));
  ASSERT_TRUE(figures.ok()) << figures.status();
  EXPECT_THAT(figures->lookups, ElementsAre(100, 100));
  EXPECT_DOUBLE_EQ(figures->total_communication_us, 0.0);
  EXPECT_DOUBLE_EQ(figures->communication_balance, 1.0);

  TableSharding table_wise = test::ShardingOf(ShardingType::kTableWise);
  table_wise.shards.push_back({1, 0, 1000, 0, 8});
  task.topology.intra_host_latency_us = 2;
  absl::StatusOr<AccessFigures> linked = AccessFiguresOf(task, OneTablePlan(table_wise));
  ASSERT_TRUE(linked.ok()) << linked.status();
  EXPECT_THAT(linked->communication(0, 1), DoubleEq(100 * (2 + 32 * 1e6 / (600 * kBytesPerGiB))));
}

TEST(AccessFiguresTest, AnUnknownTableIsRefusedNamingIt) {
  TableSharding other = test::ShardingOf(ShardingType::kTableWise, "nope");
  other.shards.push_back({0, 0, 1, 0, 8});
  EXPECT_STATUS(AccessFiguresOf(TwoDeviceTask(), OneTablePlan(other)),
                absl::StatusCode::kInvalidArgument, "nope");
}

TEST(AccessFiguresTest, DegreeOfBalanceIsMinOverMax) {
  EXPECT_DOUBLE_EQ(DegreeOfBalance({2.0, 4.0, 3.0}), 0.5);
  EXPECT_DOUBLE_EQ(DegreeOfBalance({0.0, 0.0}), 1.0);
  EXPECT_DOUBLE_EQ(DegreeOfBalance({}), 1.0);
}

}  // namespace
}  // namespace shardplan
