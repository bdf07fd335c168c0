#include "planner/algorithms/neuroshard/greedy_grid.h"

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/neuroshard/split_state.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "planner/search/shard_cost_cache.h"
#include "tests/unit/planner/algorithms/neuroshard/neuroshard_test_util.h"

namespace shardplan::neuroshard {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

constexpr double kUncapped = std::numeric_limits<double>::infinity();

// 6 to 5 + `spread` tables of random shapes on 2 to 8 devices, with 1.1 to 2 times the memory
// they need spread evenly: tight enough that some grid scales fail.
Task RandomTask(std::mt19937_64& rng, int spread) {
  const int tables = 6 + static_cast<int>(rng() % spread);
  const int devices = 2 + static_cast<int>(rng() % 7);
  std::vector<Table> list;
  for (int t = 0; t < tables; ++t) {
    list.push_back(MakeTable(absl::StrCat("t", t), 1000 + static_cast<int64_t>(rng() % 400000),
                             4 << (rng() % 6), 0.5 + static_cast<double>(rng() % 40)));
  }
  int64_t total = 0;
  for (const Table& table : list) total += table.rows * table.dim * 4;
  return test::MakeTask(list, devices, total / devices * (11 + rng() % 10) / 10);
}

TEST(GreedyTest, TieBreaks) {
  // Equal predicted costs: the reference pops the higher index first (c, b, a). c goes to
  // device 0 (all equal, lowest index), b to device 1 (cheaper), a ties on cost and goes to the
  // device with less memory used (device 1: b is smaller than c).
  const Task task = test::MakeTask(
      {MakeTable("a", 100, 8), MakeTable("b", 100, 8), MakeTable("c", 200, 8)}, 2, kGiB);
  const test::FakeCostModel model;  // compute = columns x pooling
  const ShardCostCache costs(model, task, /*enabled=*/true);
  absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
  ASSERT_TRUE(problem.ok());
  const SplitState state(task);
  absl::StatusOr<std::vector<int32_t>> devices = Greedy(*problem, state, kUncapped, costs);
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(1, 1, 0));
  // mean_dim = 12: at scale 1.0 the cap of 12 leaves no room for a beside b or c.
  EXPECT_EQ(Greedy(*problem, state, 1.0, costs).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Greedy(*problem, state, 1.5, costs).ok());
}

TEST(GreedyTest, LargestPredictedCostFirstOntoTheCheapestDevice) {
  const Task task = test::MakeTask({MakeTable("a", 100, 8, 1.0), MakeTable("b", 100, 8, 5.0),
                                    MakeTable("c", 100, 8, 3.0), MakeTable("d", 100, 8, 2.0)},
                                   2, kGiB);
  const test::FakeCostModel model;
  const ShardCostCache costs(model, task, /*enabled=*/true);
  absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
  ASSERT_TRUE(problem.ok());
  // b (40) -> 0; c (24) -> 1; d (16) -> 1 (24 < 40); a (8) -> 0 (40 = 40, and device 0 holds
  // less memory)
  absl::StatusOr<std::vector<int32_t>> devices =
      Greedy(*problem, SplitState(task), kUncapped, costs);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, ElementsAre(0, 0, 1, 1));
}

// GreedyAtScales forks one run where scales choose differently; every scale's outcome must be
// the one a greedy of its own gives, placement and error alike. Random tasks of 6 to 40 tables
// on 2 to 8 devices, split states included, tight memory so that some scales fail.
TEST(GreedyAtScalesTest, EveryScaleGetsWhatItsOwnGreedyGives) {
  std::mt19937_64 rng(7);
  const test::NonAdditiveModel model;
  int forked = 0, failed = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Task task = RandomTask(rng, 35);
    const ShardCostCache costs(model, task, /*enabled=*/true);
    absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
    ASSERT_TRUE(problem.ok());
    SplitState state(task);
    for (int s = 0; s < 3; ++s) {
      const int piece = static_cast<int>(rng() % state.pieces().size());
      if (HalfIsSplittable(state.pieces()[piece].columns)) state.Split(piece);
    }
    const std::vector<GreedyItem> items = GreedyOrder(*problem, state, costs);
    std::vector<double> scales;
    for (int k = 0; k < 11; ++k) scales.push_back(1.0 + 0.05 * k);
    scales.push_back(0.9);  // unsorted on purpose
    const auto together = GreedyAtScales(*problem, state, items, scales, costs);
    ASSERT_EQ(together.size(), scales.size());
    std::set<std::vector<int32_t>> distinct;
    for (size_t k = 0; k < scales.size(); ++k) {
      SCOPED_TRACE(absl::StrCat("trial ", trial, ", scale ", scales[k]));
      const auto alone = Greedy(*problem, state, items, scales[k], costs);
      ASSERT_EQ(together[k].ok(), alone.ok()) << alone.status();
      if (alone.ok()) {
        EXPECT_EQ(*together[k], *alone);
        distinct.insert(*alone);
      } else {
        EXPECT_EQ(together[k].status(), alone.status());
        ++failed;
      }
    }
    forked += distinct.size() > 1;
  }
  // The trials exercise forks and failures, not only one shared run.
  EXPECT_GT(forked, 10);
  EXPECT_GT(failed, 10);
}

// A child state's grid resumed from the parent's checkpoint (where their item orders first
// differ) gives exactly what its grid from the first item gives.
TEST(GreedyCheckpointTest, ResumedGridsEqualGridsFromTheStart) {
  std::mt19937_64 rng(11);
  const test::NonAdditiveModel model;
  const StopSignal never;
  int resumed = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Task task = RandomTask(rng, 30);
    const ShardCostCache costs(model, task, /*enabled=*/true);
    absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
    ASSERT_TRUE(problem.ok());
    SplitState parent(task);
    if (HalfIsSplittable(parent.pieces()[0].columns)) parent.Split(0);
    const std::vector<GreedyItem> parent_items = GreedyOrder(*problem, parent, costs);
    std::vector<SplitState> children;
    std::vector<std::vector<GreedyItem>> child_items;
    std::vector<size_t> shared;
    for (size_t p = 0; p < parent.pieces().size(); ++p) {
      if (!HalfIsSplittable(parent.pieces()[p].columns)) continue;
      children.push_back(parent);
      children.back().Split(static_cast<int>(p));
      child_items.push_back(GreedyOrder(*problem, children.back(), costs));
      shared.push_back(CommonPrefix(parent_items, child_items.back()));
    }
    std::vector<size_t> stops;
    for (size_t k : shared) {
      if (k > 0 && std::find(stops.begin(), stops.end(), k) == stops.end()) stops.push_back(k);
    }
    std::sort(stops.begin(), stops.end());
    const auto checkpoints =
        GreedyCheckpoints(*problem, parent, parent_items, GridOptions{}, costs, stops);
    ASSERT_EQ(checkpoints.size(), stops.size());
    for (size_t c = 0; c < children.size(); ++c) {
      SCOPED_TRACE(absl::StrCat("trial ", trial, ", child ", c));
      if (shared[c] == 0) continue;
      const auto at = std::find(stops.begin(), stops.end(), shared[c]) - stops.begin();
      const GridResult fresh = GridSearch(*problem, children[c], GridOptions{}, costs, never);
      const GridResult resumed_grid = GridSearch(*problem, children[c], child_items[c],
                                                 GridOptions{}, costs, never,
                                                 checkpoints[at].get());
      EXPECT_EQ(resumed_grid.feasible, fresh.feasible);
      EXPECT_EQ(resumed_grid.device_of_piece, fresh.device_of_piece);
      EXPECT_EQ(resumed_grid.cost_ms, fresh.cost_ms);
      EXPECT_EQ(resumed_grid.failure, fresh.failure);
      EXPECT_EQ(resumed_grid.greedy_runs, fresh.greedy_runs);
      EXPECT_EQ(resumed_grid.plan_evaluations, fresh.plan_evaluations);
      ++resumed;
    }
  }
  EXPECT_GT(resumed, 100);
}

TEST(GridSearchTest, KeepsTheCheapestScale) {
  const Task task = test::SixTables(3);
  const test::NonAdditiveModel model;
  const ShardCostCache costs(model, task, /*enabled=*/true);
  absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
  ASSERT_TRUE(problem.ok());
  SplitState state(task);
  state.Split(3);
  const StopSignal never;
  const GridResult grid = GridSearch(*problem, state, GridOptions{}, costs, never);
  ASSERT_TRUE(grid.feasible);
  EXPECT_EQ(grid.greedy_runs, 11);
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 11; ++k) {
    absl::StatusOr<std::vector<int32_t>> devices = Greedy(*problem, state, 1.0 + 0.05 * k, costs);
    if (!devices.ok()) continue;
    Plan plan = PlanOfState(task, state, *devices);
    ASSERT_TRUE(EvaluatePlan(task, model, plan).ok());
    best = std::min(best, plan.cost_ms);
  }
  EXPECT_DOUBLE_EQ(grid.cost_ms, best);
  Plan plan = PlanOfState(task, state, grid.device_of_piece);
  ASSERT_TRUE(EvaluatePlan(task, model, plan).ok());
  EXPECT_DOUBLE_EQ(plan.cost_ms, grid.cost_ms);
}

TEST(GridSearchTest, WithoutGridOneUncappedGreedy) {
  const Task task = test::SixTables(3);
  const test::NonAdditiveModel model;
  const ShardCostCache costs(model, task, /*enabled=*/true);
  absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
  ASSERT_TRUE(problem.ok());
  const StopSignal never;
  const GridResult grid =
      GridSearch(*problem, SplitState(task), GridOptions{.grid_steps = 11, .grid_search = false},
                 costs, never);
  EXPECT_TRUE(grid.feasible);
  EXPECT_EQ(grid.greedy_runs, 1);
  EXPECT_EQ(grid.plan_evaluations, 1);
}

TEST(GridSearchTest, FallsBackToUncappedWhenNoScaleFits) {
  // One dominant table: its dim alone exceeds 1.5 x the mean device dim sum.
  const Task task =
      test::MakeTask({MakeTable("big", 100, 128), MakeTable("small", 100, 8)}, 4, kGiB);
  const test::FakeCostModel model;
  const ShardCostCache costs(model, task, /*enabled=*/true);
  absl::StatusOr<SearchProblem> problem = MakeSearchProblem(task, true);
  ASSERT_TRUE(problem.ok());
  const StopSignal never;
  const GridResult grid = GridSearch(*problem, SplitState(task), GridOptions{}, costs, never);
  EXPECT_TRUE(grid.feasible);
  EXPECT_EQ(grid.greedy_runs, 12);
}

}  // namespace
}  // namespace shardplan::neuroshard
