#include "planner/algorithms/alis/plan_aggregation.h"

#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/planner/algorithms/alis/alis_test_util.h"

namespace shardplan::alis {
namespace {

using test::OneTable;
using test::Row;

TEST(PlanAggregationTest, WeighsPlansByInverseCostAndAge) {
  std::vector<HistoryPlan> history;
  history.push_back({.plan = OneTable(2, 2), .cost = 2.0, .update = 3});  // age 2
  history.push_back({.plan = OneTable(2, 2), .cost = 1.0, .update = 4});  // age 1
  const std::vector<double> w = HistoryVoteWeights(history, 5, 0.5);
  // (1/2 x 0.5) : (1/1 x 1) = 0.25 : 1.
  EXPECT_DOUBLE_EQ(w[0], 0.25 / 1.25);
  EXPECT_DOUBLE_EQ(w[1], 1.0 / 1.25);
  // An unmeasured plan weighs as the measured ones' mean inverse cost.
  history.push_back({.plan = OneTable(2, 2), .update = 4});
  const std::vector<double> with_unmeasured = HistoryVoteWeights(history, 5, 0.5);
  EXPECT_DOUBLE_EQ(with_unmeasured[2] / with_unmeasured[1], 0.75);
}

TEST(PlanAggregationTest, BetaDecidesBetweenHistoryAndCandidate) {
  const RowShardMap candidate = OneTable(3, 3, 2);
  std::vector<HistoryPlan> history;
  history.push_back({.plan = OneTable(3, 3, 0), .cost = 1.0, .update = 0});
  history.push_back({.plan = OneTable(3, 3, 0), .cost = 1.0, .update = 1});
  history.back().plan.Assign(Row(1), 1);
  // beta 0.8: a unanimous history (0.8) beats the candidate (0.2) ...
  const RowShardMap stable = AggregatePlans(candidate, history, 2, {.beta = 0.8, .age_decay = 0.5});
  EXPECT_EQ(stable.ShardOf(Row(0)), 0);
  // ... a split one (row 1: shard 1 gets 0.8 x 2/3, shard 0 0.8 x 1/3) still outvotes it.
  EXPECT_EQ(stable.ShardOf(Row(1)), 1);
  // beta 0.3: the candidate (0.7) wins.
  const RowShardMap adaptive =
      AggregatePlans(candidate, history, 2, {.beta = 0.3, .age_decay = 0.5});
  EXPECT_EQ(adaptive.ShardOf(Row(0)), 2);
  // No history: the candidate.
  EXPECT_TRUE(AggregatePlans(candidate, {}, 2, {}).SamePlacementAs(candidate));
}

}  // namespace
}  // namespace shardplan::alis
