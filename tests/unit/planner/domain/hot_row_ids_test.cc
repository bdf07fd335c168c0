#include "planner/domain/hot_row_ids.h"

#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// 2 devices; h: 100 x 8 rows whose profile names the ids of its top `known` ranks (rank r is
// id 99 - r).
Task HotIdsTask(int known) {
  Table table = test::MakeTable("h", 100, 8, 4.0);
  TopKAccessProfile top_k{.top_counts = std::vector<double>(known, 10.0), .tail_count = 1.0};
  for (int r = 0; r < known; ++r) top_k.top_ids.push_back(99 - r);
  table.access_profile.top_k = std::move(top_k);
  return test::MakeTask({table}, 2, test::kGiB);
}

// Ranks [0, replicated) on both devices, the rest split row-wise.
Plan HotRowsOnBoth(int64_t replicated) {
  TableSharding sharding = test::ShardingOf(ShardingType::kRowWise, "h");
  sharding.row_order = RowOrder::kFrequencyRank;
  sharding.shards = {{0, 0, replicated, 0, 8}, {1, 0, replicated, 0, 8}};
  const int64_t half = (100 - replicated) / 2;
  sharding.shards.push_back({0, replicated, half, 0, 8});
  sharding.shards.push_back({1, replicated + half, 100 - replicated - half, 0, 8});
  Plan plan;
  plan.tables = {sharding};
  return plan;
}

TEST(HotRowIdsTest, AReplicatedRankPrefixGetsItsIdsInRankOrder) {
  Plan plan = HotRowsOnBoth(3);
  EXPECT_THAT(AttachHotRowIds(HotIdsTask(10), plan), IsEmpty());
  EXPECT_THAT(plan.tables[0].hot_row_ids, ElementsAre(99, 98, 97));
}

TEST(HotRowIdsTest, IdsStopAtTheProfilesTopKAndSaySo) {
  Plan plan = HotRowsOnBoth(6);
  const std::vector<HotRowIdsShortfall> gaps = AttachHotRowIds(HotIdsTask(4), plan);
  EXPECT_THAT(plan.tables[0].hot_row_ids, ElementsAre(99, 98, 97, 96));
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].table, "h");
  EXPECT_EQ(gaps[0].table_index, 0);
  EXPECT_EQ(gaps[0].replicated_end, 6);
  EXPECT_EQ(gaps[0].known_ids, 4);
}

TEST(HotRowIdsTest, TheEndOfTheLastReplicatedGroupCountsNotTheFirst) {
  // Ranks [0, 2) on both devices, [2, 5) on device 0 alone, [5, 8) on both again.
  Plan plan = HotRowsOnBoth(2);
  TableSharding& sharding = plan.tables[0];
  sharding.shards = {{0, 0, 2, 0, 8}, {1, 0, 2, 0, 8}, {0, 2, 3, 0, 8},
                     {0, 5, 3, 0, 8}, {1, 5, 3, 0, 8}, {1, 8, 92, 0, 8}};
  EXPECT_THAT(AttachHotRowIds(HotIdsTask(10), plan), IsEmpty());
  EXPECT_EQ(sharding.hot_row_ids.size(), 8u);
}

TEST(HotRowIdsTest, NoIdsWithoutReplicasRankOrderOrTopIds) {
  Plan unreplicated = HotRowsOnBoth(0);
  unreplicated.tables[0].shards.erase(unreplicated.tables[0].shards.begin(),
                                      unreplicated.tables[0].shards.begin() + 2);
  AttachHotRowIds(HotIdsTask(10), unreplicated);
  EXPECT_THAT(unreplicated.tables[0].hot_row_ids, IsEmpty());

  Plan natural = HotRowsOnBoth(3);
  natural.tables[0].row_order = RowOrder::kNatural;
  AttachHotRowIds(HotIdsTask(10), natural);
  EXPECT_THAT(natural.tables[0].hot_row_ids, IsEmpty());

  Plan no_ids = HotRowsOnBoth(3);
  AttachHotRowIds(HotIdsTask(0), no_ids);
  EXPECT_THAT(no_ids.tables[0].hot_row_ids, IsEmpty());
}

TEST(HotRowIdsTest, IdsAPlanArrivedWithAreReplacedNotKept) {
  Plan plan = HotRowsOnBoth(0);
  plan.tables[0].shards.erase(plan.tables[0].shards.begin(), plan.tables[0].shards.begin() + 2);
  plan.tables[0].hot_row_ids = {1, 2, 3};  // e.g. a client's plan sent for evaluation
  AttachHotRowIds(HotIdsTask(10), plan);
  EXPECT_THAT(plan.tables[0].hot_row_ids, IsEmpty());
}

}  // namespace
}  // namespace shardplan
