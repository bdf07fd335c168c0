#include "planner/domain/routed_layout_queries.h"

#include <map>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/table_access.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;

// 2 hosts x 2 devices, global batch 400 (100 per device); s: a sequence table of 1000 x 16
// rows, pooling 10, Zipf(1) over its ranks.
Task RoutedTwoHostTask() {
  Table table = MakeTable("s", 1000, 16, 10.0);
  table.pooling = Pooling::kSequence;
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  Task task = test::MakeTask({table}, 4, test::kGiB);
  task.topology.devices_per_host = 2;
  task.batch_size = 400;
  return task;
}

// FlexShard's three tiers: ranks [0, 10) on every device, [10, 110) as two slices each on local
// rank w of both hosts, [110, 1000) row-wise in four blocks.
TableSharding ThreeTiers() {
  TableSharding sharding = test::ShardingOf(ShardingType::kRowWise, "s");
  sharding.row_order = RowOrder::kFrequencyRank;
  for (int32_t d = 0; d < 4; ++d) sharding.shards.push_back({d, 0, 10, 0, 16});
  sharding.shards.push_back({0, 10, 50, 0, 16});
  sharding.shards.push_back({2, 10, 50, 0, 16});
  sharding.shards.push_back({1, 60, 50, 0, 16});
  sharding.shards.push_back({3, 60, 50, 0, 16});
  const int64_t block = (1000 - 110) / 4;
  for (int32_t d = 0; d < 4; ++d) {
    sharding.shards.push_back({d, 110 + d * block, d == 3 ? 1000 - 110 - 3 * block : block, 0, 16});
  }
  return sharding;
}

RoutedTableQueries QueriesOf(const Task& task, const TableSharding& sharding) {
  return QueriesOfRoutedLayout(task, task.tables[0], sharding,
                               LayoutOf(task.tables[0], sharding));
}

std::vector<const CollectiveDemand*> Of(const RoutedTableQueries& queries, Collective collective,
                                        Pass pass) {
  std::vector<const CollectiveDemand*> found;
  for (const CollectiveDemand& demand : queries.collectives) {
    if (demand.collective == collective && demand.pass == pass) found.push_back(&demand);
  }
  return found;
}

TEST(RoutedLayoutQueriesTest, EachReplicaServesTheRequestersRoutedToItTheCurvesShare) {
  const Task task = RoutedTwoHostTask();
  const RoutedTableQueries queries = QueriesOf(task, ThreeTiers());
  const RankFrequencyCurve curve = CurveOf(task.tables[0], task.batch_size);
  ASSERT_EQ(queries.shards.size(), 12u);
  for (int s = 0; s < 4; ++s) {  // the hot rows: each replica serves its own device
    EXPECT_EQ(queries.shards[s].routed.requesters, 1);
    EXPECT_DOUBLE_EQ(queries.shards[s].routed.rows_share, curve.Share(0, 10));
    EXPECT_DOUBLE_EQ(LookupShare(queries.shards[s]), curve.Share(0, 10) / 4);
    EXPECT_DOUBLE_EQ(BatchShare(queries.shards[s], 4), 0.25);
  }
  for (int s = 4; s < 8; ++s) {  // a slice: the two devices of its host
    EXPECT_EQ(queries.shards[s].routed.requesters, 2);
    EXPECT_TRUE(queries.shards[s].routed.ranked);
  }
  EXPECT_DOUBLE_EQ(queries.shards[4].routed.rows_share, curve.Share(10, 60));
  for (int s = 8; s < 12; ++s) EXPECT_EQ(queries.shards[s].routed.requesters, 4);
  // Kernel calls: one per requester count, after the classic ones.
  EXPECT_NE(KernelCallKey(queries.shards[0]), KernelCallKey(queries.shards[4]));
  EXPECT_NE(KernelCallKey(queries.shards[4]), KernelCallKey(queries.shards[8]));
  EXPECT_GT(KernelCallKey(queries.shards[0]), int64_t{1} << 32);
}

TEST(RoutedLayoutQueriesTest, TiersExchangeTheRowsFoundWithinTheirScopeAndAllReduceReplicas) {
  const Task task = RoutedTwoHostTask();
  const RoutedTableQueries queries = QueriesOf(task, ThreeTiers());
  const RankFrequencyCurve curve = CurveOf(task.tables[0], task.batch_size);
  const double rows_found_per_unit_share = 10.0 * 100 * 16 * 4;  // L x B/W x c x 4

  const std::vector<const CollectiveDemand*> forward =
      Of(queries, Collective::kAllToAll, Pass::kForward);
  ASSERT_EQ(forward.size(), 2u);  // the hot tier serves itself: no exchange
  std::map<int32_t, const CollectiveDemand*> by_tier;
  for (const CollectiveDemand* demand : forward) by_tier[demand->tier] = demand;
  ASSERT_TRUE(by_tier.count(1) && by_tier.count(2));

  // Flex: within each host only, each slice's rows found for the host's two requesters.
  const CollectiveDemand& flex = *by_tier[2];
  EXPECT_FALSE(flex.crosses_hosts);
  for (const PairBytes& pair : flex.pairs) {
    EXPECT_EQ(task.topology.host_of(pair.from), task.topology.host_of(pair.to));
    const double share = pair.from % 2 == 0 ? curve.Share(10, 60) : curve.Share(60, 110);
    EXPECT_DOUBLE_EQ(pair.bytes, rows_found_per_unit_share * share);
  }
  EXPECT_EQ(flex.pairs.size(), 8u);  // 2 slices x 2 requesters x 2 hosts

  // RW: every block to every requester, across hosts.
  const CollectiveDemand& rw = *by_tier[1];
  EXPECT_TRUE(rw.crosses_hosts);
  EXPECT_EQ(rw.pairs.size(), 16u);
  double to_device_0 = 0.0;
  for (const PairBytes& pair : rw.pairs) {
    if (pair.to == 0) to_device_0 += pair.bytes;
  }
  EXPECT_NEAR(to_device_0, rows_found_per_unit_share * curve.Share(110, 1000), 1e-6);

  // Backward: the same exchanges transposed.
  const std::vector<const CollectiveDemand*> backward =
      Of(queries, Collective::kAllToAll, Pass::kBackward);
  ASSERT_EQ(backward.size(), 2u);
  for (const CollectiveDemand* demand : backward) {
    const CollectiveDemand& twin = *by_tier[demand->tier];
    ASSERT_EQ(demand->pairs.size(), twin.pairs.size());
    for (size_t i = 0; i < twin.pairs.size(); ++i) {
      EXPECT_EQ(demand->pairs[i].from, twin.pairs[i].to);
      EXPECT_EQ(demand->pairs[i].to, twin.pairs[i].from);
    }
  }

  // All-reduces: the hot group over all four, each slice over its two replicas.
  const std::vector<const CollectiveDemand*> all_reduce =
      Of(queries, Collective::kAllReduce, Pass::kBackward);
  ASSERT_EQ(all_reduce.size(), 3u);
  EXPECT_EQ(all_reduce[0]->peers, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(all_reduce[0]->bytes, 10.0 * 16 * 4);
  EXPECT_EQ(all_reduce[1]->peers, (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE(all_reduce[1]->crosses_hosts);
  EXPECT_DOUBLE_EQ(all_reduce[1]->bytes, 50.0 * 16 * 4);
}

// Within a rank band the ids are hashed: each row an even part of its band's share.
TEST(RoutedLayoutQueriesTest, RowsOfARankBandShareItsLookupsEvenly) {
  const Task task = RoutedTwoHostTask();
  const RankFrequencyCurve curve = CurveOf(task.tables[0], task.batch_size);
  TableSharding sharding = ThreeTiers();
  sharding.rank_bands = {10, 110};  // the tiers
  const RowRangeAccess hot = AccessOfRows(task.tables[0], sharding, curve, 0, 10);
  EXPECT_DOUBLE_EQ(hot.share, curve.Share(0, 10));
  EXPECT_EQ(hot.ranks_end, 10);
  const RowRangeAccess slice = AccessOfRows(task.tables[0], sharding, curve, 10, 60);
  EXPECT_NEAR(slice.share, curve.Share(10, 110) / 2, 1e-15);
  EXPECT_EQ(slice.ranks_begin, 10);  // the classes of the whole band
  EXPECT_EQ(slice.ranks_end, 110);
  const RowRangeAccess cold = AccessOfRows(task.tables[0], sharding, curve, 110, 332);
  EXPECT_NEAR(cold.share, curve.Share(110, 1000) * 222 / 890, 1e-15);
  EXPECT_EQ(cold.ranks_end, 1000);
  const RowRangeAccess straddle = AccessOfRows(task.tables[0], sharding, curve, 100, 200);
  EXPECT_NEAR(straddle.share,
              curve.Share(10, 110) * 10 / 100 + curve.Share(110, 1000) * 90 / 890, 1e-15);
  // No bands: every row its own rank. Natural order: rows / rows.
  sharding.rank_bands.clear();
  EXPECT_DOUBLE_EQ(AccessOfRows(task.tables[0], sharding, curve, 10, 60).share,
                   curve.Share(10, 60));
  sharding.row_order = RowOrder::kNatural;
  EXPECT_DOUBLE_EQ(AccessOfRows(task.tables[0], sharding, curve, 0, 10).share, 0.01);

  // Every slice and block of a banded tier serves the same share: the tiers are balanced.
  sharding = ThreeTiers();
  sharding.rank_bands = {10, 110};
  const RoutedTableQueries queries = QueriesOf(task, sharding);
  EXPECT_NEAR(queries.shards[4].routed.rows_share, queries.shards[6].routed.rows_share, 1e-15);
  EXPECT_NEAR(queries.shards[8].routed.rows_share, queries.shards[10].routed.rows_share, 1e-15);
}

TEST(RoutedLayoutQueriesTest, InferenceExchangesForwardOnly) {
  Task task = RoutedTwoHostTask();
  task.objective = Objective::kInference;
  const RoutedTableQueries queries = QueriesOf(task, ThreeTiers());
  EXPECT_EQ(Of(queries, Collective::kAllToAll, Pass::kForward).size(), 2u);
  for (const CollectiveDemand& demand : queries.collectives) {
    EXPECT_EQ(demand.pass, Pass::kForward);
  }
}

TEST(RoutedLayoutQueriesTest, AnExplicitRouteMovesTheRequestersTraffic) {
  const Task task = RoutedTwoHostTask();
  TableSharding sharding = ThreeTiers();
  // Device 1 reads the first slice from host 1's replica (shard 5, device 2) instead of device 0.
  sharding.routes.push_back(RowRoute{.requester = 1, .shard = 5});
  const RoutedTableQueries queries = QueriesOf(task, sharding);
  EXPECT_EQ(queries.shards[4].routed.requesters, 1);  // device 0's replica: device 0 only
  EXPECT_EQ(queries.shards[5].routed.requesters, 3);
  bool crosses = false;
  for (const CollectiveDemand* demand : Of(queries, Collective::kAllToAll, Pass::kForward)) {
    if (demand->tier != 2) continue;
    crosses = demand->crosses_hosts;
    EXPECT_THAT(demand->peers, ::testing::Contains(1));
  }
  EXPECT_TRUE(crosses);
}

TEST(RoutedLayoutQueriesTest, DataParallelOnSomeDevicesSendsOutputsToTheOthers) {
  Task task = RoutedTwoHostTask();
  task.tables[0].pooling = Pooling::kSum;
  task.tables[0].access_profile = {};
  TableSharding dp = test::ShardingOf(ShardingType::kDataParallel, "s");
  dp.shards = {{0, 0, 1000, 0, 16}, {2, 0, 1000, 0, 16}};
  const RoutedTableQueries queries = QueriesOf(task, dp);
  EXPECT_EQ(queries.shards[0].routed.requesters, 2);  // devices 0 and 1 (same host)
  EXPECT_DOUBLE_EQ(queries.shards[0].routed.rows_share, 1.0);
  EXPECT_DOUBLE_EQ(LookupShare(queries.shards[0]), 0.5);
  const std::vector<const CollectiveDemand*> forward =
      Of(queries, Collective::kAllToAll, Pass::kForward);
  ASSERT_EQ(forward.size(), 1u);
  // Pooled outputs of each requester's 100 samples, from its host's replica; none to itself.
  ASSERT_EQ(forward[0]->pairs.size(), 2u);
  EXPECT_EQ(forward[0]->pairs[0].from, 0);
  EXPECT_EQ(forward[0]->pairs[0].to, 1);
  EXPECT_DOUBLE_EQ(forward[0]->pairs[0].bytes, 100.0 * 16 * 4);
  EXPECT_FALSE(forward[0]->crosses_hosts);
}

TEST(RoutedLayoutQueriesTest, DescribePlacementRoutesOnlyLayoutsBeyondTheClassicFive) {
  const Task task = RoutedTwoHostTask();
  Plan routed;
  routed.tables = {ThreeTiers()};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, routed);
  ASSERT_TRUE(queries.ok()) << queries.status();
  EXPECT_EQ(queries->routed_tables, std::vector<int32_t>{0});
  EXPECT_EQ(queries->shards_per_device[0].size(), 3u);
  EXPECT_TRUE(queries->shards_per_device[0][0].routed.routed());

  Plan classic;
  classic.tables = {test::EvenShards(ShardingType::kRowWise, {0, 1, 2, 3}, 1000, 16)};
  classic.tables[0].table = "s";
  queries = DescribePlacement(task, classic);
  ASSERT_TRUE(queries.ok()) << queries.status();
  EXPECT_TRUE(queries->routed_tables.empty());
  EXPECT_FALSE(queries->shards_per_device[0][0].routed.routed());
}

}  // namespace
}  // namespace shardplan
