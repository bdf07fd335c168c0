#include "planner/algorithms/neuroshard/split_state.h"

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/neuroshard/greedy_grid.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "planner/search/shard_cost_cache.h"
#include "tests/unit/planner/algorithms/neuroshard/neuroshard_test_util.h"

namespace shardplan::neuroshard {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(SplitRuleTest, HalfMustBeAPositiveMultipleOfFour) {
  EXPECT_TRUE(HalfIsSplittable(64));   // -> 32
  EXPECT_TRUE(HalfIsSplittable(8));    // -> 4
  EXPECT_FALSE(HalfIsSplittable(4));   // -> 2
  EXPECT_FALSE(HalfIsSplittable(12));  // -> 6
  EXPECT_TRUE(HalfIsSplittable(24));   // -> 12
}

TEST(SplitStateTest, RepeatedSplitsGiveUnevenWidths) {
  const Task task = test::MakeTask({MakeTable("a", 100, 128), MakeTable("b", 100, 16)}, 2, kGiB);
  SplitState state(task);
  state.Split(0);
  state.Split(0);
  ASSERT_EQ(state.pieces().size(), 4u);
  auto shape = [&](int i) {
    const Piece& p = state.pieces()[i];
    return std::vector<int>{p.table, p.columns, p.column_offset};
  };
  EXPECT_THAT(shape(0), ElementsAre(0, 32, 0));
  EXPECT_THAT(shape(1), ElementsAre(1, 16, 0));
  EXPECT_THAT(shape(2), ElementsAre(0, 64, 64));
  EXPECT_THAT(shape(3), ElementsAre(0, 32, 32));  // 128 -> 64 + 32 + 32
  EXPECT_THAT(state.steps(), ElementsAre(0, 0));
}

TEST(SplitStateTest, PlanOfStateValidatesAndCoversEveryColumnOnce) {
  const Task task = test::MakeTask(
      {MakeTable("a", 1000, 128), MakeTable("b", 1000, 16), MakeTable("c", 1000, 64)}, 3, kGiB);
  SplitState state(task);
  state.Split(0);  // a: 64 + 64
  state.Split(2);  // c: 32 + 32
  state.Split(3);  // a's upper half: 32 + 32
  const Plan plan = PlanOfState(task, state, {0, 1, 2, 1, 0, 2});
  ASSERT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  EXPECT_THAT(plan.stats.column_splits, ElementsAre("a", "c", "a"));
  ASSERT_EQ(plan.tables.size(), 3u);
  EXPECT_EQ(plan.tables[1].sharding_type, ShardingType::kTableWise);
  for (int t : {0, 2}) {
    const TableSharding& sharding = plan.tables[t];
    EXPECT_EQ(sharding.sharding_type, ShardingType::kColumnWise);
    int32_t next = 0;  // contiguous, ascending, all rows
    for (const Shard& shard : sharding.shards) {
      EXPECT_EQ(shard.column_offset, next);
      EXPECT_EQ(shard.row_count, 1000);
      next += shard.column_count;
    }
    EXPECT_EQ(next, task.tables[t].dim);
  }
  EXPECT_EQ(plan.tables[0].shards.size(), 3u);
}

}  // namespace
}  // namespace shardplan::neuroshard
