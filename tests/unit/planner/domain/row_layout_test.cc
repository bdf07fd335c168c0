#include "planner/domain/row_layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;
using ::testing::ElementsAre;

// 8 devices, 4 per host.
Topology TwoHosts() {
  Topology topology;
  topology.memory_bytes.assign(8, test::kGiB);
  topology.devices_per_host = 4;
  return topology;
}

TEST(RowLayoutTest, TodaysTypesAreLayoutsOfOneShapeEach) {
  const Table table = MakeTable("t", 1000, 64);
  const Topology topology = TwoHosts();

  TableSharding tw = test::ShardingOf(ShardingType::kTableWise);
  tw.shards = {{3, 0, 1000, 0, 64}};
  TableLayout layout = LayoutOf(table, tw);
  ASSERT_EQ(layout.groups.size(), 1u);
  EXPECT_THAT(layout.groups[0].devices, ElementsAre(3));
  EXPECT_TRUE(IsClassicLayout(layout, 8));

  TableSharding cw = test::ShardingOf(ShardingType::kColumnWise);
  cw.shards = {{0, 0, 1000, 0, 32}, {1, 0, 1000, 32, 32}};
  layout = LayoutOf(table, cw);
  ASSERT_EQ(layout.groups.size(), 2u);
  EXPECT_EQ(layout.groups[1].column_offset, 32);
  EXPECT_FALSE(layout.Replicated());

  const TableSharding rw = test::EvenShards(ShardingType::kRowWise, {0, 1, 2, 3}, 1000, 64);
  layout = LayoutOf(table, rw);
  EXPECT_EQ(layout.groups.size(), 4u);
  EXPECT_THAT(layout.group_of_shard, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(IsClassicLayout(layout, 8));

  // DATA_PARALLEL: one group whose replicas are every device.
  const TableSharding dp =
      test::EvenShards(ShardingType::kDataParallel, {0, 1, 2, 3, 4, 5, 6, 7}, 1000, 64);
  layout = LayoutOf(table, dp);
  ASSERT_EQ(layout.groups.size(), 1u);
  EXPECT_EQ(layout.groups[0].replicas(), 8);
  EXPECT_TRUE(layout.Replicated());
  EXPECT_TRUE(IsClassicLayout(layout, 8));
  EXPECT_FALSE(IsClassicLayout(layout, 9));  // not on every device
}

TEST(RowLayoutTest, ReplicatedHotRowsFormOneGroup) {
  const Table table = MakeTable("t", 1000, 64);
  TableSharding hybrid = test::ShardingOf(ShardingType::kRowWise);
  hybrid.row_order = RowOrder::kFrequencyRank;
  for (int32_t d = 0; d < 4; ++d) hybrid.shards.push_back({d, 0, 10, 0, 64});
  hybrid.shards.push_back({0, 10, 500, 0, 64});
  hybrid.shards.push_back({1, 510, 490, 0, 64});
  const TableLayout layout = LayoutOf(table, hybrid);
  ASSERT_EQ(layout.groups.size(), 3u);
  EXPECT_THAT(layout.groups[0].shards, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(layout.group_of_shard, ElementsAre(0, 0, 0, 0, 1, 2));
  EXPECT_EQ(layout.row_order, RowOrder::kFrequencyRank);
  EXPECT_FALSE(IsClassicLayout(layout, 4));
}

TEST(RowLayoutTest, DefaultRouteIsSelfThenSameHostThenLowestDevice) {
  const Table table = MakeTable("t", 100, 16);
  const Topology topology = TwoHosts();
  // Replicas on devices 6, 2 and 3 (shards 0, 1, 2).
  const TableSharding dp = test::EvenShards(ShardingType::kDataParallel, {6, 2, 3}, 100, 16);
  const TableLayout layout = LayoutOf(table, dp);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, topology);
  ASSERT_EQ(serving.size(), 1u);
  // Devices 0, 1: host 0 holds 2 and 3, the lower is 2 (shard 1). 2, 3: themselves. 4, 5, 7:
  // host 1 holds 6 (shard 0). 6: itself.
  EXPECT_THAT(serving[0], ElementsAre(1, 1, 1, 2, 0, 0, 0, 0));
}

TEST(RowLayoutTest, RoutesOverrideTheDefault) {
  const Table table = MakeTable("t", 100, 16);
  TableSharding dp = test::EvenShards(ShardingType::kDataParallel, {6, 2, 3}, 100, 16);
  dp.routes = {RowRoute{.requester = 0, .shard = 2}, RowRoute{.requester = 6, .shard = 1}};
  const TableLayout layout = LayoutOf(table, dp);
  EXPECT_THAT(ServingShards(layout, TwoHosts())[0], ElementsAre(2, 1, 1, 2, 0, 0, 1, 0));
  EXPECT_FALSE(IsClassicLayout(layout, 3));
}

TEST(RowLayoutTest, OneHostTopologyRoutesToTheLowestReplica) {
  const Table table = MakeTable("t", 100, 16);
  Topology topology;
  topology.memory_bytes.assign(4, test::kGiB);
  const TableSharding dp = test::EvenShards(ShardingType::kDataParallel, {3, 1}, 100, 16);
  EXPECT_THAT(ServingShards(LayoutOf(table, dp), topology)[0], ElementsAre(1, 1, 1, 0));
}

}  // namespace
}  // namespace shardplan
