#include "planner/algorithms/alis/alis_replan.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lab/traces/drifting_traffic.h"
#include "planner/traffic/request_cost.h"
#include "tests/unit/planner/algorithms/alis/alis_test_util.h"

namespace shardplan::alis {
namespace {

using test::OneTable;
using test::Row;
using test::WindowOf;
using ::testing::HasSubstr;

// The paper's Fig. 3b. Rows a, b, c were requested together and sit on shard 0 (the paper's
// shard 1); e, f, g, h on shard 1. Then a and b are requested with e and f, while e, f, g, h stay
// together: a and b belong with e now.
constexpr int64_t kA = 0, kB = 1, kC = 2, kE = 4, kF = 5, kG = 6, kH = 7;

struct Fig3b {
  RowShardMap plan = OneTable(8, 2);
  CooccurrenceStats before = WindowOf({{Row(kA), Row(kB), Row(kC)},
                                       {Row(kA), Row(kB), Row(kC)},
                                       {Row(kE), Row(kF), Row(kG), Row(kH)}},
                                      10);
  CooccurrenceStats after =
      WindowOf({{Row(kA), Row(kB), Row(kE), Row(kF)}, {Row(kE), Row(kF), Row(kG), Row(kH)}}, 10);
  Fig3b() {
    for (int64_t row : {kE, kF, kG, kH}) plan.Assign(Row(row), 1);
  }
};

Params ToyParams(Method method) {
  Params params;
  params.method = method;
  params.alpha = 1.0;
  params.imbalance = 1.0;  // the paper's toy has no balance cap
  return params;
}

// Runs `windows` in turn from `plan`; the last plan.
RowShardMap RunUpdates(const RowShardMap& plan,
                       const std::vector<const CooccurrenceStats*>& windows, const Params& params) {
  RowShardMap current = plan;
  State state;
  for (const CooccurrenceStats* window : windows) {
    absl::StatusOr<Update> update = Replan(current, std::move(state), *window, params);
    EXPECT_TRUE(update.ok()) << update.status();
    current = std::move(update->plan);
    state = std::move(update->state);
  }
  return current;
}

TEST(AlisFig3bTest, GreedyKeepsABOnTheirOldShard) {
  const Fig3b toy;
  const RowShardMap plan =
      RunUpdates(toy.plan, {&toy.before, &toy.after}, ToyParams(Method::kGreedy));
  EXPECT_EQ(plan.ShardOf(Row(kA)), 0);
  EXPECT_EQ(plan.ShardOf(Row(kB)), 0);
  EXPECT_EQ(plan.ShardOf(Row(kE)), 1);
}

TEST(AlisFig3bTest, LightIncrementalShardingMovesABToE) {
  const Fig3b toy;
  const RowShardMap plan =
      RunUpdates(toy.plan, {&toy.before, &toy.after}, ToyParams(Method::kBase));
  EXPECT_EQ(plan.ShardOf(Row(kA)), 1);
  EXPECT_EQ(plan.ShardOf(Row(kB)), 1);
  EXPECT_EQ(plan.ShardOf(Row(kE)), 1);
  EXPECT_EQ(plan.ShardOf(Row(kC)), 0);
}

TEST(AlisFig3bTest, AlisFollowsOneUpdateLaterThroughTheVote) {
  const Fig3b toy;
  const Params params = ToyParams(Method::kAlis);
  // One window after the shift, the history (the previous candidate, weight beta = 0.8) outvotes
  // the new candidate (0.2); one window later the history agrees with it.
  const RowShardMap first = RunUpdates(toy.plan, {&toy.before, &toy.after}, params);
  EXPECT_EQ(first.ShardOf(Row(kA)), 0);
  const RowShardMap second = RunUpdates(toy.plan, {&toy.before, &toy.after, &toy.after}, params);
  EXPECT_EQ(second.ShardOf(Row(kA)), 1);
  EXPECT_EQ(second.ShardOf(Row(kB)), 1);
  RequestBatch request;
  request.Add(std::vector<uint64_t>{Row(kA), Row(kB), Row(kE), Row(kF)});
  EXPECT_EQ(CostOfWindow(second, request, A100NvlinkHostLatencyModel())->mean_fan_out, 1.0);
  EXPECT_EQ(CostOfWindow(first, request, A100NvlinkHostLatencyModel())->mean_fan_out, 2.0);
}

// A drifting trace's windows, collected.
std::vector<CooccurrenceStats> DriftingWindows(int windows, int64_t per_window, uint64_t seed) {
  traces::DriftingTraffic traffic = *traces::DriftingTraffic::Create(
      {.fields = 6, .rows_per_field = 400, .groups = 60, .drift_every = per_window, .seed = seed});
  std::vector<CooccurrenceStats> out;
  std::vector<uint64_t> request;
  for (int w = 0; w < windows; ++w) {
    CooccurrenceCollector collector = *CooccurrenceCollector::Create({});
    for (int64_t i = 0; i < per_window; ++i) {
      traffic.Next(request);
      collector.Add(request);
    }
    out.push_back(std::move(collector).Finish());
  }
  return out;
}

RowShardMap DriftingSpace(int shards) {
  return *RowShardMap::Create(
      [] {
        std::vector<RowSpaceTable> tables;
        for (int f = 0; f < 6; ++f)
          tables.push_back({.name = "f" + std::to_string(f), .rows = 400, .row_bytes = 64});
        return tables;
      }(),
      shards);
}

class AlisMethodTest : public ::testing::TestWithParam<Method> {};

TEST_P(AlisMethodTest, SameInputsSamePlanStateAndDelta) {
  const std::vector<CooccurrenceStats> windows = DriftingWindows(4, 300, 3);
  Params params;
  params.method = GetParam();
  params.seed = 11;
  auto run = [&] {
    RowShardMap plan = FullReshard(DriftingSpace(4), windows[0], params, 0);
    State state;
    std::vector<int64_t> moved;
    for (size_t w = 1; w < windows.size(); ++w) {
      absl::StatusOr<Update> update = Replan(plan, std::move(state), windows[w], params);
      EXPECT_TRUE(update.ok()) << update.status();
      plan = std::move(update->plan);
      state = std::move(update->state);
      RecordMeasuredCost(state, 10.0 + static_cast<double>(w));
      moved.push_back(update->delta.rows_moved);
    }
    return std::make_pair(plan, moved);
  };
  const auto [plan, moved] = run();
  const auto [again, moved_again] = run();
  EXPECT_TRUE(plan.SamePlacementAs(again));
  EXPECT_EQ(moved, moved_again);
}

TEST_P(AlisMethodTest, HonoursTheMigrationBudgetInRowsAndBytes) {
  const std::vector<CooccurrenceStats> windows = DriftingWindows(2, 400, 5);
  Params params;
  params.method = GetParam();
  params.period = 1;
  const RowShardMap start = HashPlan(DriftingSpace(4), 1);
  absl::StatusOr<Update> free_update = Replan(start, State{}, windows[1], params);
  ASSERT_TRUE(free_update.ok()) << free_update.status();
  if (free_update->delta.rows_moved < 10) GTEST_SKIP() << "moves nothing to limit";
  params.budget.rows = free_update->delta.rows_moved / 3;
  absl::StatusOr<Update> by_rows = Replan(start, State{}, windows[1], params);
  ASSERT_TRUE(by_rows.ok());
  EXPECT_LE(by_rows->delta.rows_moved, params.budget.rows);
  EXPECT_GT(by_rows->delta.rows_moved, 0);
  EXPECT_EQ(by_rows->stats.budget.kept_moves, by_rows->delta.rows_moved);
  params.budget = {.bytes = 64 * 5 + 10};
  absl::StatusOr<Update> by_bytes = Replan(start, State{}, windows[1], params);
  ASSERT_TRUE(by_bytes.ok());
  EXPECT_LE(by_bytes->delta.bytes_moved, 64 * 5 + 10);
  params.budget = {.rows = 0};
  EXPECT_EQ(Replan(start, State{}, windows[1], params)->delta.rows_moved, 0);
}

INSTANTIATE_TEST_SUITE_P(Methods, AlisMethodTest,
                         ::testing::Values(Method::kAlis, Method::kBase, Method::kFull,
                                           Method::kVanilla, Method::kPeriodic, Method::kGreedy),
                         [](const auto& info) { return std::string(MethodName(info.param)); });

TEST(AlisReplanTest, TheBudgetKeepsTheHottestRowsMoves) {
  // Rows 0..3 all want to join row 4's shard; row 0 is the most requested.
  RowShardMap plan = OneTable(8, 2);
  plan.Assign(Row(4), 1);
  plan.Assign(Row(5), 1);
  plan.Assign(Row(6), 1);
  std::vector<std::vector<uint64_t>> requests;
  for (int i = 0; i < 8; ++i) requests.push_back({Row(0), Row(4), Row(5), Row(6)});
  for (int i = 0; i < 3; ++i) requests.push_back({Row(1), Row(4), Row(5), Row(6)});
  Params params = ToyParams(Method::kBase);
  params.budget.rows = 1;
  const absl::StatusOr<Update> update = Replan(plan, State{}, WindowOf(requests), params);
  ASSERT_TRUE(update.ok()) << update.status();
  EXPECT_EQ(update->delta.rows_moved, 1);
  EXPECT_EQ(update->plan.ShardOf(Row(0)), 1);
  EXPECT_EQ(update->plan.ShardOf(Row(1)), 0);
  EXPECT_EQ(update->stats.budget.dropped_for_budget, 1);
}

TEST(AlisReplanTest, NewRowsGetASeededShardAndJoinTheirNeighbours) {
  // Algorithm 3: rows 6 and 7 were never placed; requested with 4 and 5 they end beside them.
  RowShardMap plan = OneTable(8, 4);
  plan.Assign(Row(6), kUnassignedShard);
  plan.Assign(Row(7), kUnassignedShard);
  for (int64_t row : {4, 5}) plan.Assign(Row(row), 3);
  const CooccurrenceStats window = WindowOf({{Row(4), Row(5), Row(6), Row(7)}}, 5);
  Params params = ToyParams(Method::kBase);
  params.imbalance = 10.0;  // four rows may share one of four shards
  const absl::StatusOr<Update> update = Replan(plan, State{}, window, params);
  ASSERT_TRUE(update.ok()) << update.status();
  EXPECT_EQ(update->stats.new_rows_placed, 2);
  EXPECT_EQ(update->plan.ShardOf(Row(6)), 3);
  EXPECT_EQ(update->plan.ShardOf(Row(7)), 3);
  EXPECT_EQ(update->delta.rows_placed, 2);
  EXPECT_EQ(update->delta.rows_moved, 0);
}

TEST(AlisReplanTest, RefusesBadParametersAndForeignRowsNamingThem) {
  const RowShardMap plan = OneTable(8, 2);
  const CooccurrenceStats window = WindowOf({{Row(0), Row(1)}});
  Params params;
  params.alpha = 0.0;
  EXPECT_THAT(Replan(plan, State{}, window, params).status().message(), HasSubstr("alpha"));
  params = Params{};
  params.beta = 1.5;
  EXPECT_THAT(Replan(plan, State{}, window, params).status().message(), HasSubstr("beta"));
  params = Params{};
  params.budget.rows = -2;
  EXPECT_THAT(Replan(plan, State{}, window, params).status().message(), HasSubstr("budget.rows"));
  CooccurrenceStats broken = window;
  broken.request_rows[0] = 9;
  EXPECT_THAT(Replan(plan, State{}, broken, Params{}).status().message(),
              HasSubstr("window.request_rows[0]"));
  const CooccurrenceStats foreign = WindowOf({{Row(0), PackRowKey(1, 0)}});
  EXPECT_THAT(Replan(plan, State{}, foreign, Params{}).status().message(),
              HasSubstr("window.rows[1]"));
  EXPECT_THAT(ParseMethod("ilp").status().message(), HasSubstr("method"));
  EXPECT_EQ(*ParseMethod("vanilla"), Method::kVanilla);
}

TEST(AlisReplanTest, BalancesBytesWhenAsked) {
  // Rows of table "wide" weigh 8x those of "narrow"; one request holds them all, so every row
  // wants one shard and only the cap spreads them.
  RowShardMap plan = *RowShardMap::Create({{.name = "narrow", .rows = 8, .row_bytes = 64},
                                           {.name = "wide", .rows = 8, .row_bytes = 512}},
                                          2, 0);
  std::vector<uint64_t> request;
  for (int64_t row = 0; row < 8; ++row) {
    request.push_back(PackRowKey(0, row));
    request.push_back(PackRowKey(1, row));
  }
  Params params;
  params.method = Method::kBase;
  params.balance_bytes = true;
  params.imbalance = 0.0;
  params.propagation_slack = 0.0;
  const absl::StatusOr<Update> update = Replan(plan, State{}, WindowOf({request}, 3), params);
  ASSERT_TRUE(update.ok()) << update.status();
  const RowShardMapSummary summary = SummarizeRowShardMap(update->plan);
  const int64_t total = 8 * 64 + 8 * 512;
  for (int64_t bytes : summary.bytes) EXPECT_LE(bytes, total / 2 + 512) << "the cap in bytes";
  EXPECT_GT(summary.bytes[1], 0);
}

TEST(AlisReplanTest, RangeAndHashPlacePlacesEveryRowEvenly) {
  const RowShardMap space = OneTable(800, 8, kUnassignedShard);
  const RowShardMapSummary range = SummarizeRowShardMap(RangePlan(space));
  EXPECT_EQ(range.rows, std::vector<int64_t>(8, 100));
  EXPECT_EQ(RangePlan(space).ShardOf(Row(99)), 0);
  EXPECT_EQ(RangePlan(space).ShardOf(Row(100)), 1);
  const RowShardMapSummary hash = SummarizeRowShardMap(HashPlan(space, 3));
  EXPECT_EQ(hash.unassigned_rows, 0);
  EXPECT_LT(hash.row_imbalance, 1.3);
}

}  // namespace
}  // namespace shardplan::alis
