// The exhaustive planner: brute-force optimality, limits, constraints, stopping and progress.

#include <atomic>
#include <chrono>
#include <limits>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/exhaustive/exhaustive_planner.h"
#include "planner/algorithms/greedy/greedy_planner.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::Devices;
using test::kGiB;
using test::MakeTable;
using test::RunPlanner;
using ::testing::ElementsAre;

constexpr int64_t kGiBRows = kGiB / 16;

// Compute grows with lookups and rows, comm with dims and imbalance: the optimum is not obvious.
struct MixedModel : test::FakeCostModel {
  MixedModel() {
    fixed_ms = 0.25;
    compute_per_lookup_column = 0.01;
    compute_per_row = 1e-6;
    bw_per_column = 0.004;
    fw_per_column = 0.003;
    wait_factor = 0.2;
  }
};

Task SmallTask() {
  return test::MakeTask({MakeTable("a", 400000, 64, 4.0), MakeTable("b", 100000, 32, 20.0),
                         MakeTable("c", 2000000, 16, 1.0), MakeTable("d", 50000, 128, 2.0),
                         MakeTable("e", 800000, 8, 12.0), MakeTable("f", 10000, 64, 30.0)},
                        3, kGiB / 4);
}

// Every assignment in lexicographic order (table 0 most significant), first minimum kept.
struct BruteForce {
  std::vector<int32_t> devices;
  double cost = std::numeric_limits<double>::infinity();
  int64_t feasible = 0;
};

BruteForce Brute(const Task& task, const CostModel& model) {
  const int n = static_cast<int>(task.tables.size());
  const int d = task.topology.num_devices();
  BruteForce best;
  std::vector<int32_t> assignment(n, 0);
  for (;;) {
    std::vector<int64_t> used(d, 0);
    std::vector<std::vector<ShardView>> shards(d);
    for (int t = 0; t < n; ++t) {
      used[assignment[t]] += TableMemoryBytes(task.tables[t], task.memory);
      shards[assignment[t]].push_back(
          ShardView{&task.tables[t], task.tables[t].rows, task.tables[t].dim});
    }
    bool fits = true;
    for (int k = 0; k < d; ++k) fits &= used[k] <= task.topology.memory_bytes[k];
    if (fits) {
      ++best.feasible;
      const double cost = CostOfPlacement(model, CostContext::For(task), shards).cost_ms;
      if (cost < best.cost) {
        best.cost = cost;
        best.devices = assignment;
      }
    }
    int t = n - 1;
    while (t >= 0 && ++assignment[t] == d) assignment[t--] = 0;
    if (t < 0) break;
  }
  return best;
}

TEST(ExhaustivePlannerTest, Info) {
  const ExhaustivePlanner planner;
  EXPECT_EQ(planner.info().name, "exhaustive");
  EXPECT_TRUE(planner.info().uses_cost_model);
  ASSERT_EQ(planner.info().params.size(), 1u);
  EXPECT_EQ(planner.info().params[0].name, "max_placements");
  EXPECT_EQ(planner.info().params[0].type, ParamType::kInt);
  EXPECT_EQ(planner.info().params[0].default_value, "1000000");
  EXPECT_EQ(planner.info().params[0].min_value, 1);
  EXPECT_THAT(planner.info().sharding_types, ElementsAre(ShardingType::kTableWise));
}

TEST(ExhaustivePlannerTest, EqualsBruteForce) {
  const Task task = SmallTask();
  const MixedModel model;
  const BruteForce brute = Brute(task, model);
  ASSERT_FALSE(brute.devices.empty());
  ASSERT_LT(brute.feasible, 729) << "memory should prune some placements";
  absl::StatusOr<Plan> plan = RunPlanner(ExhaustivePlanner(), task, {}, 0, nullptr, &model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Devices(*plan), brute.devices);
  EXPECT_EQ(plan->stats.candidates_evaluated, brute.feasible);
  EXPECT_EQ(plan->stats.cost_model_calls, brute.feasible * (3 + 2));
  ASSERT_TRUE(EvaluatePlan(task, model, *plan).ok());
  EXPECT_DOUBLE_EQ(plan->cost_ms, brute.cost);
}

TEST(ExhaustivePlannerTest, FirstFoundWinsTies) {
  // Identical tables on identical devices: every balanced placement costs the same, and the
  // search (table 0 outermost, devices ascending) meets 0, 0, 1, 1 first.
  const Task task = test::MakeTask(
      {MakeTable("a", 10, 8), MakeTable("b", 10, 8), MakeTable("c", 10, 8), MakeTable("d", 10, 8)},
      2, kGiB);
  test::FakeCostModel model;  // compute = columns x pooling per device
  absl::StatusOr<Plan> plan = RunPlanner(ExhaustivePlanner(), task, {}, 0, nullptr, &model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(0, 0, 1, 1));
  EXPECT_EQ(Devices(*plan), Brute(task, model).devices);
}

TEST(ExhaustivePlannerTest, NeverWorseThanAnyGreedy) {
  const MixedModel model;
  for (int variant = 0; variant < 3; ++variant) {
    Task task = SmallTask();
    task.topology.memory_bytes = {kGiB / 4 + variant * kGiB / 8, kGiB / 3, kGiB / 2};
    absl::StatusOr<Plan> best = PlanTask(ExhaustivePlanner(), task, model, {});
    ASSERT_TRUE(best.ok()) << best.status();
    for (GreedyWeight weight : {GreedyWeight::kDim, GreedyWeight::kSize, GreedyWeight::kLookup,
                                GreedyWeight::kSizeLookup}) {
      const GreedyPlanner greedy(weight);
      absl::StatusOr<Plan> plan = PlanTask(greedy, task, model, {});
      ASSERT_TRUE(plan.ok()) << plan.status();
      EXPECT_LE(best->cost_ms, plan->cost_ms) << greedy.info().name << " variant " << variant;
    }
  }
}

TEST(ExhaustivePlannerTest, RespectsHeterogeneousMemory) {
  // The best balance would split a and b, but only device 1 can hold b.
  const Task task = test::MakeTask({MakeTable("a", kGiBRows / 2, 4), MakeTable("b", kGiBRows, 4)},
                                   {kGiB / 2, 2 * kGiB});
  test::FakeCostModel model;
  model.compute_per_row = 1e-6;
  absl::StatusOr<Plan> plan = RunPlanner(ExhaustivePlanner(), task, {}, 0, nullptr, &model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(0, 1));
  EXPECT_EQ(plan->stats.candidates_evaluated, 2);  // (0,1) and (1,1)
}

TEST(ExhaustivePlannerTest, TooManyPlacementsIsResourceExhausted) {
  std::vector<Table> tables;
  for (int i = 0; i < 12; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 10, 8));
  const Task task = test::MakeTask(tables, 4, kGiB);
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), task), absl::StatusCode::kResourceExhausted,
                "exhaustive: 4^12 = 16777216 placements (devices ^ unpinned tables) exceed "
                "parameters.max_placements = 1000000");
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), test::MakeTask(tables, 2, kGiB),
                           {{"max_placements", "4095"}}),
                absl::StatusCode::kResourceExhausted, "2^12 = 4096 placements");
  std::vector<Table> many;
  for (int i = 0; i < 100; ++i) many.push_back(MakeTable(absl::StrCat("t", i), 10, 8));
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), test::MakeTask(many, 8, kGiB)),
                absl::StatusCode::kResourceExhausted, "8^100 = more than 2^63 placements");
}

TEST(ExhaustivePlannerTest, PinnedTablesAreFixedAndNotCounted) {
  Task task = SmallTask();
  task.topology.memory_bytes.assign(3, kGiB);
  task.tables[1].pinned_device = 2;
  task.tables[4].pinned_device = 0;
  const MixedModel model;
  // 3^4 = 81 placements: allowed by a limit that 3^6 = 729 would exceed.
  absl::StatusOr<Plan> plan =
      RunPlanner(ExhaustivePlanner(), task, {{"max_placements", "81"}}, 0, nullptr, &model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->stats.candidates_evaluated, 81);
  EXPECT_EQ(Devices(*plan)[1], 2);
  EXPECT_EQ(Devices(*plan)[4], 0);
  // It is the best of the placements that honour the pins.
  double best_cost = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    for (int c = 0; c < 3; ++c) {
      for (int d = 0; d < 3; ++d) {
        for (int f = 0; f < 3; ++f) {
          Plan evaluated = TableWisePlan(task, {a, 2, c, d, 0, f});
          ASSERT_TRUE(EvaluatePlan(task, model, evaluated).ok());
          best_cost = std::min(best_cost, evaluated.cost_ms);
        }
      }
    }
  }
  ASSERT_TRUE(EvaluatePlan(task, model, *plan).ok());
  EXPECT_DOUBLE_EQ(plan->cost_ms, best_cost);
}

TEST(ExhaustivePlannerTest, ColocationGroupsMoveTogether) {
  Task task = SmallTask();
  task.topology.memory_bytes.assign(3, kGiB);
  task.colocate = {{"a", "f"}, {"b", "c", "e"}};
  const MixedModel model;
  absl::StatusOr<Plan> plan = RunPlanner(ExhaustivePlanner(), task, {}, 0, nullptr, &model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->stats.candidates_evaluated, 27);  // 3 units on 3 devices
  const std::vector<int32_t> devices = Devices(*plan);
  EXPECT_EQ(devices[0], devices[5]);
  EXPECT_EQ(devices[1], devices[2]);
  EXPECT_EQ(devices[1], devices[4]);
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

TEST(ExhaustivePlannerTest, TableTooLargeForAnyDeviceIsNamed) {
  const Task task = test::MakeTask({MakeTable("a", 10, 8), MakeTable("huge", 5 * kGiBRows, 4)},
                                   {4 * kGiB, 2 * kGiB});
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for exhaustive: table \"huge\" needs 5.00 GiB but the most "
                "free memory on any device is 4.00 GiB (device 0, capacity 4.00 GiB)");
}

TEST(ExhaustivePlannerTest, NoCombinationFits) {
  // Each 1.5 GiB table fits a 2 GiB device alone, but three do not fit two devices.
  const Task task =
      test::MakeTask({MakeTable("a", 3 * kGiBRows / 2, 4), MakeTable("b", 3 * kGiBRows / 2, 4),
                      MakeTable("c", 3 * kGiBRows / 2, 4)},
                     2, 2 * kGiB);
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for exhaustive: no table-wise placement of the 3 tables "
                "(4.50 GiB in all) fits the devices' memory (4.00 GiB in all)");
}

TEST(ExhaustivePlannerTest, PinnedTableThatDoesNotFitIsNamed) {
  Task task = test::MakeTask({MakeTable("a", 3 * kGiBRows, 4)}, {4 * kGiB, 2 * kGiB});
  task.tables[0].pinned_device = 1;
  EXPECT_STATUS(RunPlanner(ExhaustivePlanner(), task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for exhaustive: table \"a\" needs 3.00 GiB but its pinned "
                "device 1 has 2.00 GiB free (capacity 2.00 GiB)");
}

TEST(ExhaustivePlannerTest, EmptyTaskAndSingleDevice) {
  absl::StatusOr<Plan> empty = RunPlanner(ExhaustivePlanner(), test::MakeTask({}, 3, kGiB));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->tables.empty());
  EXPECT_EQ(empty->stats.candidates_evaluated, 1);
  // One device: one placement however many tables (1^n), searched without deep recursion.
  std::vector<Table> tables;
  for (int i = 0; i < 5000; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 1, 4));
  absl::StatusOr<Plan> one = RunPlanner(ExhaustivePlanner(), test::MakeTask(tables, 1, kGiB));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->tables.size(), 5000u);
  EXPECT_EQ(one->stats.candidates_evaluated, 1);
}

// 4^10 placements of ~1 us each: about a second of search, far longer than the signals below.
Task SlowTask() {
  std::vector<Table> tables;
  for (int i = 0; i < 10; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 100 + i, 8));
  return test::MakeTask(tables, 4, kGiB);
}

struct SlowModel : test::FakeCostModel {
  SlowModel() { compute_sleep_us = 1; }
};

TEST(ExhaustivePlannerTest, StopsAtTheDeadline) {
  const SlowModel model;
  const auto deadline = StopSignal::Clock::now() + std::chrono::milliseconds(30);
  const StopSignal stop(deadline);
  absl::StatusOr<Plan> plan = RunPlanner(ExhaustivePlanner(), SlowTask(),
                                         {{"max_placements", "2000000"}}, 0, &stop, &model);
  const auto late = StopSignal::Clock::now() - deadline;
  EXPECT_STATUS(plan, absl::StatusCode::kDeadlineExceeded, "deadline");
  // The whole search takes far longer; it must have stopped soon after the signal (the design
  // target is ~10 ms, the bound here leaves room for a loaded machine).
  EXPECT_LT(late, std::chrono::milliseconds(250))
      << std::chrono::duration<double, std::milli>(late).count() << " ms late";
  std::printf("stopped %.3f ms after the deadline\n",
              std::chrono::duration<double, std::milli>(late).count());
}

TEST(ExhaustivePlannerTest, StopsWhenCancelledFromAnotherThread) {
  const SlowModel model;
  StopSignal stop;
  absl::StatusOr<Plan> plan;
  std::atomic<bool> finished{false};
  StopSignal::Clock::time_point finished_at;
  std::thread worker([&] {
    plan = RunPlanner(ExhaustivePlanner(), SlowTask(), {{"max_placements", "2000000"}}, 0, &stop,
                      &model);
    finished_at = StopSignal::Clock::now();
    finished = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(finished.load()) << "the search should still be running";
  const auto cancelled_at = StopSignal::Clock::now();
  stop.RequestCancel();
  worker.join();
  EXPECT_STATUS(plan, absl::StatusCode::kCancelled, "cancelled");
  EXPECT_LT(finished_at - cancelled_at, std::chrono::milliseconds(250));
  std::printf("stopped %.3f ms after the cancellation\n",
              std::chrono::duration<double, std::milli>(finished_at - cancelled_at).count());
}

TEST(ExhaustivePlannerTest, ReportsProgressPerFirstLevelBranch) {
  const Task task = SmallTask();
  const MixedModel model;
  std::vector<double> fractions;
  PlanTaskOptions options;
  options.on_progress = [&](const PlanningProgress& progress) {
    fractions.push_back(progress.fraction);
  };
  absl::StatusOr<Plan> plan = PlanTask(ExhaustivePlanner(), task, model, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // PlanTask's start (0), one report per first-level branch (1/3, 2/3, 1), PlanTask's end (1).
  ASSERT_EQ(fractions.size(), 5u);
  EXPECT_EQ(fractions.front(), 0.0);
  EXPECT_DOUBLE_EQ(fractions[1], 1.0 / 3);
  EXPECT_DOUBLE_EQ(fractions[2], 2.0 / 3);
  EXPECT_DOUBLE_EQ(fractions[3], 1.0);
  EXPECT_EQ(fractions.back(), 1.0);
}

}  // namespace
}  // namespace shardplan
