#include "planner/algorithms/flexshard/flexshard_layout.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::flexshard {
namespace {

// Two hosts of 4 devices.
Task TwoHosts(int64_t rows) {
  Task task = test::MakeTask({test::MakeTable("t", rows, 8)}, 8, test::kGiB);
  task.topology.devices_per_host = 4;
  return task;
}

struct Range {
  int32_t device;
  int64_t offset;
  int64_t count;
  bool operator==(const Range&) const = default;
};

std::vector<Range> RangesOf(const TableSharding& sharding) {
  std::vector<Range> ranges;
  for (const Shard& shard : sharding.shards) {
    ranges.push_back({shard.device, shard.row_offset, shard.row_count});
  }
  return ranges;
}

TEST(FlexShardLayoutTest, DpEverywhereFlexSlicesPerLocalRankRwBlocks) {
  const Task task = TwoHosts(30);
  // DP [0, 2), Flex [2, 10) in 4 slices of 2, RW [10, 30) in 8 blocks of 3 (the last 2 empty).
  const TableSharding sharding =
      FlexShardSharding(task.tables[0], task.topology, TierBounds{.dp_end = 2, .flex_end = 10});
  EXPECT_EQ(sharding.sharding_type, ShardingType::kRowWise);
  EXPECT_EQ(sharding.row_order, RowOrder::kFrequencyRank);
  EXPECT_EQ(sharding.rank_bands, (std::vector<int64_t>{2, 10}));  // the tiers, ids hashed in each
  std::vector<Range> expected;
  for (int32_t d = 0; d < 8; ++d) expected.push_back({d, 0, 2});
  for (int32_t w = 0; w < 4; ++w) {
    expected.push_back({w, 2 + 2 * w, 2});
    expected.push_back({4 + w, 2 + 2 * w, 2});
  }
  for (int32_t d = 0; d < 7; ++d) expected.push_back({d, 10 + 3 * d, d < 6 ? 3 : 2});
  EXPECT_EQ(RangesOf(sharding), expected);
  Plan plan;
  plan.tables = {sharding};
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
}

TEST(FlexShardLayoutTest, EmptyTiersAndSlicesAreLeftOut) {
  const Task task = TwoHosts(10);
  // No DP; Flex [0, 3): 3 rows in slices of 1 on local ranks 0..2 (rank 3 none); RW [3, 10).
  const TableSharding sharding =
      FlexShardSharding(task.tables[0], task.topology, TierBounds{.dp_end = 0, .flex_end = 3});
  const TableLayout layout = LayoutOf(task.tables[0], sharding);
  int flex_groups = 0;
  for (const RowGroup& group : layout.groups) {
    EXPECT_GT(group.row_count, 0);
    if (group.replicas() == 2) ++flex_groups;
  }
  EXPECT_EQ(flex_groups, 3);
  // Everything DP: one group on every device, nothing else.
  const TableSharding all_dp =
      FlexShardSharding(task.tables[0], task.topology, TierBounds{.dp_end = 10, .flex_end = 10});
  EXPECT_EQ(all_dp.shards.size(), 8u);
  Plan plan;
  plan.tables = {all_dp};
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
}

TEST(FlexShardLayoutTest, ATableWithNothingReplicatedIsTorchRecsRowWise) {
  const Task task = TwoHosts(30);
  const TableSharding sharding =
      FlexShardSharding(task.tables[0], task.topology, TierBounds{.dp_end = 0, .flex_end = 0});
  EXPECT_EQ(sharding.row_order, RowOrder::kNatural);  // TorchRec's, exportable as it is
  std::vector<Range> expected;
  for (int32_t d = 0; d < 8; ++d) expected.push_back({d, 4 * d, d < 7 ? 4 : 2});
  EXPECT_EQ(RangesOf(sharding), expected);
}

TEST(FlexShardLayoutTest, TheTierOfARankRange) {
  const TierBounds bounds{.dp_end = 5, .flex_end = 9};
  EXPECT_EQ(bounds.TierOf(0), TierKind::kDataParallel);
  EXPECT_EQ(bounds.TierOf(5), TierKind::kFlex);
  EXPECT_EQ(bounds.TierOf(9), TierKind::kRowWise);
  EXPECT_STREQ(TierKindName(TierKind::kFlex), "Flex");
}

}  // namespace
}  // namespace shardplan::flexshard
