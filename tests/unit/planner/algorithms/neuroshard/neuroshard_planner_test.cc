// The neuroshard planner end to end: brute-force bounds, splits, determinism across threads,
// deadlines, ablations and infeasibility.

#include "planner/algorithms/neuroshard/neuroshard_planner.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/algorithms/exhaustive/exhaustive_planner.h"
#include "planner/algorithms/neuroshard/baseline_portfolio.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/algorithms/neuroshard/neuroshard_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::HasSubstr;

using Params = std::map<std::string, std::string>;

absl::StatusOr<Plan> PlanWithNeuroShard(
    const Task& task, const CostModel& model, Params params = {}, const StopSignal* stop = nullptr,
    std::function<void(const PlanningProgress&)> on_progress = nullptr) {
  PlanTaskOptions options;
  options.params = std::move(params);
  options.stop = stop;
  options.on_progress = std::move(on_progress);
  return PlanTask(NeuroShardPlanner(), task, model, options);
}

// Tiny tasks with varied shapes: 5-6 tables on 2-3 devices.
std::vector<Task> TinyTasks() {
  std::vector<Task> tasks = {test::SixTables(2), test::SixTables(3)};
  tasks.push_back(test::MakeTask({MakeTable("p", 300000, 32, 8.0), MakeTable("q", 20000, 64, 3.0),
                                  MakeTable("r", 900000, 16, 2.0), MakeTable("s", 5000, 128, 1.0),
                                  MakeTable("t", 60000, 8, 40.0)},
                                 2, kGiB / 8));
  return tasks;
}

TEST(NeuroShardTest, RegisteredWithItsParameters) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  absl::StatusOr<const Algorithm*> planner = registry.Find("neuroshard");
  ASSERT_TRUE(planner.ok()) << planner.status();
  const AlgorithmInfo& info = (*planner)->info();
  EXPECT_TRUE(info.uses_cost_model);
  std::map<std::string, std::string> defaults;
  for (const ParamSpec& spec : info.params) defaults[spec.name] = spec.default_value;
  EXPECT_EQ(defaults, (Params{{"beam_width", "3"},
                              {"candidates", "10"},
                              {"max_steps", "10"},
                              {"grid_steps", "11"},
                              {"beam_search", "true"},
                              {"grid_search", "true"},
                              {"cost_cache", "true"},
                              {"baselines", "true"},
                              {"row_level", "true"},
                              {"threads", "1"}}));
}

// The baseline portfolio: NeuroShard's plan is never predicted costlier than a greedy
// baseline's, nor than its search alone (baselines=false).
TEST(NeuroShardTest, NeverPredictedWorseThanAGreedyBaseline) {
  const test::NonAdditiveModel model;
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  std::mt19937_64 rng(11);
  for (int k = 0; k < 40; ++k) {
    std::vector<Table> tables;
    const int count = 6 + static_cast<int>(rng() % 12);
    int64_t bytes = 0;
    for (int t = 0; t < count; ++t) {
      tables.push_back(MakeTable(absl::StrCat("t", t), 1000 + static_cast<int64_t>(rng() % 900000),
                                 4 << (rng() % 5), 1.0 + static_cast<double>(rng() % 40)));
      bytes += tables.back().rows * tables.back().dim * 4;
    }
    const Task task = test::MakeTask(tables, 4, bytes / 4 + bytes / (2 + k % 20));
    absl::StatusOr<shardplan::Plan> plan = PlanWithNeuroShard(task, model);
    absl::StatusOr<shardplan::Plan> alone =
        PlanWithNeuroShard(task, model, {{"baselines", "false"}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_TRUE(alone.ok()) << alone.status();
    EXPECT_LE(plan->cost_ms, alone->cost_ms + 1e-9) << k;
    for (const char* name : {"size_greedy", "dim_greedy", "lookup_greedy", "size_lookup_greedy"}) {
      absl::StatusOr<shardplan::Plan> baseline = PlanTask(**registry.Find(name), task, model, {});
      if (!baseline.ok()) continue;  // whole tables may not fit: the baseline has no plan
      EXPECT_LE(plan->cost_ms, baseline->cost_ms * (1 + 1e-9)) << k << " " << name;
    }
  }
}

// The portfolio step itself: a poor search plan (random's) gives way to the cheapest greedy
// baseline's; the cheapest plan stays as it is.
TEST(NeuroShardTest, PortfolioKeepsTheCheapestOfTheSearchAndTheBaselines) {
  const test::NonAdditiveModel model;
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  const StopSignal never;
  const Task task = test::SixTables(3);
  double best = std::numeric_limits<double>::infinity();
  std::string best_name;
  for (const char* name : {"size_greedy", "dim_greedy", "lookup_greedy", "size_lookup_greedy"}) {
    absl::StatusOr<shardplan::Plan> baseline = PlanTask(**registry.Find(name), task, model, {});
    ASSERT_TRUE(baseline.ok()) << baseline.status();
    if (baseline->cost_ms < best) {
      best = baseline->cost_ms;
      best_name = name;
    }
  }
  PlanTaskOptions options;
  options.seed = 3;
  absl::StatusOr<shardplan::Plan> poor = PlanTask(**registry.Find("random"), task, model, options);
  ASSERT_TRUE(poor.ok()) << poor.status();
  ASSERT_GT(poor->cost_ms, best * 1.01) << "random happened to be good: pick another seed";
  absl::StatusOr<shardplan::Plan> chosen =
      neuroshard::CheapestOfSearchAndBaselines(task, model, never, *poor);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_DOUBLE_EQ(chosen->cost_ms, best) << best_name;

  absl::StatusOr<shardplan::Plan> kept =
      neuroshard::CheapestOfSearchAndBaselines(task, model, never, *chosen);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_DOUBLE_EQ(kept->cost_ms, chosen->cost_ms);
}

TEST(NeuroShardTest, NeverBelowTheTableWiseOptimumWithoutSplits) {
  const test::NonAdditiveModel model;
  for (const Task& task : TinyTasks()) {
    absl::StatusOr<shardplan::Plan> best = PlanTask(ExhaustivePlanner(), task, model, {});
    ASSERT_TRUE(best.ok()) << best.status();
    absl::StatusOr<shardplan::Plan> plan =
        PlanWithNeuroShard(task, model, {{"beam_search", "false"}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_GE(plan->cost_ms, best->cost_ms - 1e-9);
    EXPECT_TRUE(plan->stats.column_splits.empty());
  }
}

TEST(NeuroShardTest, FindsTheOptimumWhereTheGreedyMust) {
  // Four equal tables, compute only: balancing by predicted cost gives two per device, optimal.
  const Task task = test::MakeTask(
      {MakeTable("a", 10, 8), MakeTable("b", 10, 8), MakeTable("c", 10, 8), MakeTable("d", 10, 8)},
      2, kGiB);
  const test::FakeCostModel model;
  absl::StatusOr<shardplan::Plan> best = PlanTask(ExhaustivePlanner(), task, model, {});
  absl::StatusOr<shardplan::Plan> plan =
      PlanWithNeuroShard(task, model, {{"beam_search", "false"}});
  ASSERT_TRUE(best.ok() && plan.ok());
  EXPECT_DOUBLE_EQ(plan->cost_ms, best->cost_ms);
  EXPECT_DOUBLE_EQ(plan->cost_ms, 16.0);
}

TEST(NeuroShardTest, SplitsNeverHurtAndHelpADominantTable) {
  const test::NonAdditiveModel model;
  for (const Task& task : TinyTasks()) {
    absl::StatusOr<shardplan::Plan> flat =
        PlanWithNeuroShard(task, model, {{"beam_search", "false"}});
    absl::StatusOr<shardplan::Plan> split = PlanWithNeuroShard(task, model);
    ASSERT_TRUE(flat.ok() && split.ok()) << flat.status() << split.status();
    EXPECT_LE(split->cost_ms, flat->cost_ms + 1e-12);
    EXPECT_TRUE(ValidatePlan(task, *split).ok());
  }
  // One table carries almost all the work: halving it is the only way to balance two devices.
  const Task task = test::MakeTask(
      {MakeTable("hot", 1000, 128, 50.0), MakeTable("x", 1000, 8), MakeTable("y", 1000, 8)}, 2,
      kGiB);
  const test::FakeCostModel additive;
  absl::StatusOr<shardplan::Plan> flat =
      PlanWithNeuroShard(task, additive, {{"beam_search", "false"}});
  absl::StatusOr<shardplan::Plan> split = PlanWithNeuroShard(task, additive);
  ASSERT_TRUE(flat.ok() && split.ok());
  EXPECT_LT(split->cost_ms, flat->cost_ms);
  EXPECT_THAT(split->stats.column_splits, ::testing::Contains("hot"));
  EXPECT_EQ(split->tables[0].sharding_type, ShardingType::kColumnWise);
}

TEST(NeuroShardTest, DeterministicAcrossRunsAndThreadCounts) {
  const test::NonAdditiveModel model;
  for (const Task& task : TinyTasks()) {
    absl::StatusOr<shardplan::Plan> one = PlanWithNeuroShard(task, model, {{"threads", "1"}});
    ASSERT_TRUE(one.ok()) << one.status();
    for (const char* threads : {"1", "2", "4"}) {
      absl::StatusOr<shardplan::Plan> other =
          PlanWithNeuroShard(task, model, {{"threads", threads}});
      ASSERT_TRUE(other.ok()) << other.status();
      EXPECT_EQ(test::Devices(*other), test::Devices(*one)) << threads;
      ASSERT_EQ(other->tables.size(), one->tables.size());
      for (size_t t = 0; t < one->tables.size(); ++t) {
        ASSERT_EQ(other->tables[t].shards.size(), one->tables[t].shards.size());
        for (size_t s = 0; s < one->tables[t].shards.size(); ++s) {
          EXPECT_EQ(other->tables[t].shards[s].device, one->tables[t].shards[s].device);
          EXPECT_EQ(other->tables[t].shards[s].column_count, one->tables[t].shards[s].column_count);
        }
      }
      EXPECT_EQ(other->stats.column_splits, one->stats.column_splits);
      EXPECT_EQ(other->cost_ms, one->cost_ms);
      EXPECT_EQ(other->stats.cost_cache_hits, one->stats.cost_cache_hits) << threads;
      EXPECT_EQ(other->stats.cost_cache_misses, one->stats.cost_cache_misses) << threads;
      EXPECT_EQ(other->stats.cost_model_calls, one->stats.cost_model_calls);
      EXPECT_EQ(other->stats.candidates_evaluated, one->stats.candidates_evaluated);
      EXPECT_FALSE(other->stats.anytime_result);
    }
  }
}

TEST(NeuroShardTest, ExpiredDeadline) {
  const StopSignal expired(StopSignal::Clock::now() - std::chrono::seconds(1));
  EXPECT_STATUS(PlanWithNeuroShard(test::SixTables(2), test::NonAdditiveModel(), {}, &expired),
                absl::StatusCode::kDeadlineExceeded, "deadline");
}

TEST(NeuroShardTest, StopMidSearchReturnsTheBestSoFarFlagged) {
  // The predicate is polled by the planner's first check, then before every grid search (whose
  // scales run together) and its uncapped fallback; cancel once the unsplit grid and part of the
  // beam have run.
  std::atomic<int> polls{0};
  const StopSignal stop(std::nullopt, [&] { return ++polls > 40; });
  const test::NonAdditiveModel model;
  absl::StatusOr<shardplan::Plan> plan = PlanWithNeuroShard(test::SixTables(3), model, {}, &stop);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->stats.anytime_result);
  EXPECT_TRUE(ValidatePlan(test::SixTables(3), *plan).ok());

  std::atomic<int> early{0};
  // Poll 2 is the unsplit grid's: stopped there, the search has no plan to return.
  const StopSignal stop_early(std::nullopt, [&] { return ++early > 1; });
  EXPECT_STATUS(PlanWithNeuroShard(test::SixTables(3), model, {}, &stop_early),
                absl::StatusCode::kCancelled, "cancelled");
}

TEST(NeuroShardTest, ReportsProgressPerBeamStep) {
  std::vector<std::string> messages;
  ASSERT_TRUE(PlanWithNeuroShard(test::SixTables(3), test::NonAdditiveModel(), {}, nullptr,
                                 [&](const PlanningProgress& p) { messages.push_back(p.message); })
                  .ok());
  EXPECT_THAT(messages, ::testing::Contains(HasSubstr("step 1/10, best cost")));
}

TEST(NeuroShardTest, AblationSwitches) {
  const test::NonAdditiveModel model;
  const Task task = test::SixTables(3);
  absl::StatusOr<shardplan::Plan> full = PlanWithNeuroShard(task, model);
  absl::StatusOr<shardplan::Plan> no_beam =
      PlanWithNeuroShard(task, model, {{"beam_search", "false"}});
  absl::StatusOr<shardplan::Plan> no_grid =
      PlanWithNeuroShard(task, model, {{"grid_search", "false"}});
  absl::StatusOr<shardplan::Plan> no_cache =
      PlanWithNeuroShard(task, model, {{"cost_cache", "false"}});
  ASSERT_TRUE(full.ok() && no_beam.ok() && no_grid.ok() && no_cache.ok());
  EXPECT_FALSE(full->stats.column_splits.empty());
  EXPECT_GT(full->stats.cost_cache_hits, 0);
  EXPECT_TRUE(no_beam->stats.column_splits.empty());
  EXPECT_EQ(no_beam->stats.candidates_evaluated, 1);
  EXPECT_LT(no_grid->stats.cost_model_calls, full->stats.cost_model_calls);
  // Without the cache the search is the same, only every query reaches the model.
  EXPECT_EQ(no_cache->stats.cost_cache_hits, 0);
  EXPECT_EQ(no_cache->stats.cost_cache_misses,
            full->stats.cost_cache_hits + full->stats.cost_cache_misses);
  EXPECT_EQ(no_cache->cost_ms, full->cost_ms);
  EXPECT_EQ(no_cache->stats.column_splits, full->stats.column_splits);
}

TEST(NeuroShardTest, RespectsConstraints) {
  const test::FakeCostModel model;
  Task task = test::MakeTask({MakeTable("hot", 1000, 128, 50.0), MakeTable("x", 1000, 8),
                              MakeTable("y", 1000, 8), MakeTable("z", 1000, 64, 9.0)},
                             2, kGiB);
  task.tables[0].allowed_sharding_types = {ShardingType::kTableWise};
  task.tables[3].pinned_device = 1;
  task.colocate = {{"x", "y"}};
  absl::StatusOr<shardplan::Plan> plan = PlanWithNeuroShard(task, model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->stats.column_splits.empty());
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

TEST(NeuroShardTest, SplitsTablesTooLargeForAnyDevice) {
  // Two tables larger than any device, listed after six small ones: every single split leaves the
  // state infeasible, so the beam must rank infeasible states by the memory left unplaced to
  // reach the state with both halved (the reference ranks them all as infinitely costly and
  // keeps the lexicographically first splits, of the small tables).
  std::vector<Table> tables;
  for (int i = 0; i < 6; ++i) tables.push_back(MakeTable(absl::StrCat("s", i), 1000, 64));
  tables.push_back(test::TableOfBytes("big1", 5 * kGiB / 2, 64));
  tables.push_back(test::TableOfBytes("big2", 5 * kGiB / 2, 64));
  const Task task = test::MakeTask(std::move(tables), 4, 2 * kGiB);
  absl::StatusOr<shardplan::Plan> plan = PlanWithNeuroShard(task, test::NonAdditiveModel());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->stats.column_splits, ::testing::IsSupersetOf({"big1", "big2"}));
  EXPECT_STATUS(PlanWithNeuroShard(task, test::NonAdditiveModel(), {{"beam_search", "false"}}),
                absl::StatusCode::kFailedPrecondition, "needs 2.50 GiB");
}

TEST(NeuroShardTest, InfeasibleNamesTheTable) {
  const Task task = test::MakeTask(
      {test::TableOfBytes("small", kGiB / 4), test::TableOfBytes("huge", 3 * kGiB)}, 2, kGiB);
  EXPECT_STATUS(PlanWithNeuroShard(task, test::FakeCostModel()),
                absl::StatusCode::kFailedPrecondition, "table \"huge\" needs 3.00 GiB");
}

}  // namespace
}  // namespace shardplan
