// The four weighted greedy baselines: reference equality, ties, memory, constraints.

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/greedy/greedy_planner.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::Devices;
using test::kGiB;
using test::MakeTable;
using test::RunPlanner;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr int64_t kGiBRows = kGiB / 16;  // rows of a fp32 dim-4 table per GiB

TEST(GreedyPlannerTest, Info) {
  const GreedyPlanner planner(GreedyWeight::kSizeLookup);
  EXPECT_EQ(planner.info().name, "size_lookup_greedy");
  EXPECT_THAT(planner.info().description, ::testing::HasSubstr("log10(rows)"));
  EXPECT_TRUE(planner.info().params.empty());
  EXPECT_THAT(planner.info().sharding_types, ElementsAre(ShardingType::kTableWise));
  EXPECT_FALSE(planner.info().uses_cost_model);
  EXPECT_EQ(GreedyPlanner(GreedyWeight::kDim).info().name, "dim_greedy");
  EXPECT_EQ(GreedyPlanner(GreedyWeight::kSize).info().name, "size_greedy");
  EXPECT_EQ(GreedyPlanner(GreedyWeight::kLookup).info().name, "lookup_greedy");
}

TEST(GreedyPlannerTest, TableCosts) {
  Table table = MakeTable("t", 1000, 16, 2.5);
  EXPECT_EQ(GreedyTableWeight(GreedyWeight::kDim, table, {}), 16);
  EXPECT_EQ(GreedyTableWeight(GreedyWeight::kSize, table, {}), 1000 * 16 * 4);
  EXPECT_EQ(GreedyTableWeight(GreedyWeight::kLookup, table, {}), 40);
  EXPECT_DOUBLE_EQ(GreedyTableWeight(GreedyWeight::kSizeLookup, table, {}), 120);
  MemoryOptions adam;
  adam.optimizer_state_multiplier = 2;
  EXPECT_EQ(GreedyTableWeight(GreedyWeight::kSize, table, adam), 3 * 1000 * 16 * 4);
}

// dim_greedy by hand, with ties in cost, in (cost, size) and in device sums:
//   order (cost, size, index) descending: t1(32), t2(16, 12800), t4(16, 6400), t0(16, 6400),
//   t5(8, 1600), t3(8, 1600)
//   t1 -> d0 (tie 0 = 0, used 0 = 0, lower index)     [32, 0]
//   t2 -> d1 (0 < 32)                                  [32, 16]
//   t4 -> d1 (16 < 32)                                 [32, 32]
//   t0 -> d0 (tie 32 = 32, used 1280 < 19200)          [48, 32]
//   t5 -> d1 (32 < 48)                                 [48, 40]
//   t3 -> d1 (40 < 48)                                 [48, 48]
TEST(GreedyPlannerTest, DimGreedyByHandWithTies) {
  const Task task =
      test::MakeTask({MakeTable("t0", 100, 16), MakeTable("t1", 10, 32), MakeTable("t2", 200, 16),
                      MakeTable("t3", 50, 8), MakeTable("t4", 100, 16), MakeTable("t5", 50, 8)},
                     2, kGiB);
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(0, 0, 1, 1, 1, 1));
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

// The planner's plan lists the task's tables in task order, one whole shard each.
TEST(GreedyPlannerTest, FillsOnlyTables) {
  const Task task = test::MakeTask({MakeTable("a", 100, 16), MakeTable("b", 10, 32)}, 2, kGiB);
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kSize), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tables.size(), 2u);
  EXPECT_EQ(plan->tables[0].table, "a");
  EXPECT_EQ(plan->tables[1].table, "b");
  EXPECT_EQ(plan->tables[0].shards[0].row_count, 100);
  EXPECT_EQ(plan->tables[0].shards[0].column_count, 16);
  EXPECT_TRUE(plan->devices.empty());
  EXPECT_TRUE(plan->algorithm.empty());
}

// Expected devices from a port of NeuroShard's sharders.py run on the same tables with per-device
// capacities 2, 2 and 1.5 GiB (memory binds in several of them).
struct ReferenceCase {
  struct Spec {
    int64_t rows;
    int32_t dim;
    double pooling_factor;
  };
  std::vector<Spec> tables;
  std::vector<int32_t> dim_greedy;
  std::vector<int32_t> size_greedy;
  std::vector<int32_t> lookup_greedy;
  std::vector<int32_t> size_lookup_greedy;
};

const std::vector<ReferenceCase>& ReferenceCases() {
  static const auto* cases = new std::vector<ReferenceCase>{
      {{{20000, 8, 7.25},
        {3000000, 4, 0.5},
        {6000000, 64, 0.5},
        {20000, 64, 0.5},
        {1000000, 8, 0.5},
        {100, 32, 7.25},
        {100, 8, 0.5},
        {1000000, 32, 0.5},
        {6000000, 64, 0.5},
        {1000, 128, 20.0},
        {100, 64, 20.0},
        {500000, 4, 1.0}},
       {1, 1, 2, 1, 1, 2, 1, 0, 1, 0, 2, 1},
       {2, 2, 1, 2, 2, 2, 2, 2, 0, 2, 2, 2},
       {2, 1, 1, 2, 2, 2, 2, 1, 2, 0, 1, 2},
       {2, 1, 1, 2, 2, 2, 2, 1, 2, 0, 1, 2}},
      {{{100, 64, 1.0},
        {20000, 32, 1.0},
        {1000000, 4, 20.0},
        {20000, 64, 1.0},
        {100, 64, 20.0},
        {3000000, 8, 2.0},
        {100, 64, 0.5},
        {1000000, 4, 20.0},
        {1000, 32, 20.0},
        {500000, 16, 7.25},
        {1000000, 32, 2.0},
        {20000, 8, 1.0}},
       {1, 0, 0, 0, 2, 2, 1, 1, 0, 2, 2, 2},
       {2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 0, 2},
       {2, 2, 2, 2, 0, 2, 2, 2, 1, 2, 2, 2},
       {2, 2, 2, 1, 0, 1, 2, 2, 1, 2, 2, 1}},
      {{{3000000, 8, 0.5},
        {1000000, 16, 20.0},
        {500000, 16, 7.25},
        {20000, 64, 0.5},
        {100, 64, 7.25},
        {1000, 16, 1.0},
        {500000, 32, 0.5},
        {3000000, 4, 20.0},
        {1000000, 16, 2.0},
        {3000000, 16, 20.0},
        {500000, 64, 7.25},
        {100, 4, 2.0}},
       {1, 0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 0},
       {2, 2, 1, 1, 2, 2, 1, 0, 2, 0, 1, 2},
       {1, 2, 1, 0, 1, 1, 1, 0, 0, 2, 0, 0},
       {1, 2, 1, 2, 2, 2, 1, 0, 1, 1, 0, 2}},
      {{{500000, 128, 0.5},
        {100, 128, 2.0},
        {3000000, 64, 7.25},
        {20000, 128, 7.25},
        {3000000, 16, 0.5},
        {500000, 16, 1.0},
        {1000000, 4, 7.25},
        {100, 8, 2.0},
        {1000, 128, 1.0},
        {500000, 32, 7.25},
        {100, 8, 7.25},
        {500000, 64, 2.0}},
       {0, 2, 1, 1, 1, 1, 0, 1, 2, 0, 0, 0},
       {1, 2, 0, 2, 2, 1, 2, 2, 2, 1, 2, 2},
       {1, 2, 1, 0, 2, 2, 1, 1, 2, 2, 2, 1},
       {2, 2, 1, 0, 2, 1, 1, 2, 2, 2, 1, 2}},
  };
  return *cases;
}

TEST(GreedyPlannerTest, MatchesTheReferenceImplementation) {
  for (size_t c = 0; c < ReferenceCases().size(); ++c) {
    SCOPED_TRACE(::testing::Message() << "case " << c);
    const ReferenceCase& reference = ReferenceCases()[c];
    std::vector<Table> tables;
    for (size_t i = 0; i < reference.tables.size(); ++i) {
      const ReferenceCase::Spec& spec = reference.tables[i];
      tables.push_back(
          MakeTable(absl::StrCat("t", 100 + i), spec.rows, spec.dim, spec.pooling_factor));
    }
    const Task task = test::MakeTask(tables, {2 * kGiB, 2 * kGiB, 3 * kGiB / 2});
    const std::pair<GreedyWeight, const std::vector<int32_t>*> expectations[] = {
        {GreedyWeight::kDim, &reference.dim_greedy},
        {GreedyWeight::kSize, &reference.size_greedy},
        {GreedyWeight::kLookup, &reference.lookup_greedy},
        {GreedyWeight::kSizeLookup, &reference.size_lookup_greedy}};
    for (const auto& [weight, expected] : expectations) {
      const GreedyPlanner planner(weight);
      SCOPED_TRACE(planner.info().name);
      absl::StatusOr<Plan> plan = RunPlanner(planner, task);
      ASSERT_TRUE(plan.ok()) << plan.status();
      EXPECT_THAT(Devices(*plan), ElementsAreArray(*expected));
      EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
    }
  }
}

// The weights order tables differently: a wide rarely-read table against a narrow hot one.
TEST(GreedyPlannerTest, WeightsDiffer) {
  // wide: dim 64, pooling 1; hot: dim 16, pooling 10; filler: dim 32, pooling 1.
  const Task task =
      test::MakeTask({MakeTable("wide", 1000, 64, 1.0), MakeTable("hot", 1000, 16, 10.0),
                      MakeTable("filler", 1000, 32, 1.0)},
                     2, kGiB);
  // dim: wide(64) -> d0, filler(32) -> d1, hot(16) -> d1.
  absl::StatusOr<Plan> dim = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(dim.ok());
  EXPECT_THAT(Devices(*dim), ElementsAre(0, 1, 1));
  // lookup: hot(160) -> d0, wide(64) -> d1, filler(32) -> d1.
  absl::StatusOr<Plan> lookup = RunPlanner(GreedyPlanner(GreedyWeight::kLookup), task);
  ASSERT_TRUE(lookup.ok());
  EXPECT_THAT(Devices(*lookup), ElementsAre(1, 0, 1));
}

TEST(GreedyPlannerTest, SizeGreedyRespectsHeterogeneousCapacities) {
  // Sizes 1.5, 1, 0.75, 0.25 GiB on devices of 1 and 2.5 GiB:
  //   a(1.5) -> d1 (d0 cannot hold it); b(1) -> d0 (0 < 1.5); c(0.75) -> d1 (d0 full);
  //   d(0.25) -> d1: d0 has no room left (1 + 0.25 > 1), d1 holds 2.25 + 0.25 = 2.5 exactly.
  const Task task =
      test::MakeTask({MakeTable("a", 3 * kGiBRows / 2, 4), MakeTable("b", kGiBRows, 4),
                      MakeTable("c", 3 * kGiBRows / 4, 4), MakeTable("d", kGiBRows / 4, 4)},
                     {kGiB, 5 * kGiB / 2});
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kSize), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(1, 0, 1, 1));
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

TEST(GreedyPlannerTest, SkipsDevicesWithoutRoomEvenWithTheLowestSum) {
  // dim_greedy on devices of 1000 bytes and 1 GiB: a (64 x 10 rows = 2560 bytes) and
  // b (32 x 10 = 1280 bytes) do not fit d0 although its sum (0) is the lowest; c (160 bytes) does.
  const Task task = test::MakeTask(
      {MakeTable("a", 10, 64), MakeTable("b", 10, 32), MakeTable("c", 10, 4)}, {1000, kGiB});
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(1, 1, 0));
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

TEST(GreedyPlannerTest, InfeasibleNamesTheTableAndTheMemory) {
  // Three 3 GiB tables take one 4 GiB device each (t2 first: ties go to the higher index);
  // then the 1.5 GiB tables find at most 1 GiB free.
  const Task task =
      test::MakeTask({MakeTable("t0", 3 * kGiBRows, 4), MakeTable("t1", 3 * kGiBRows, 4),
                      MakeTable("t2", 3 * kGiBRows, 4), MakeTable("t3", 3 * kGiBRows / 2, 4),
                      MakeTable("t4", 3 * kGiBRows / 2, 4), MakeTable("t5", 3 * kGiBRows / 2, 4)},
                     3, 4 * kGiB);
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kSize), task),
                absl::StatusCode::kFailedPrecondition,
                "task is infeasible for size_greedy: table \"t5\" needs 1.50 GiB but the most "
                "free memory on any device is 1.00 GiB (device 0, capacity 4.00 GiB)");
  for (GreedyWeight weight :
       {GreedyWeight::kDim, GreedyWeight::kLookup, GreedyWeight::kSizeLookup}) {
    const GreedyPlanner planner(weight);
    EXPECT_STATUS(RunPlanner(planner, task), absl::StatusCode::kFailedPrecondition,
                  "task is infeasible for " + planner.info().name + ": table \"t");
  }
}

TEST(GreedyPlannerTest, InfeasibleReportsTheDeviceWithTheMostFreeMemory) {
  // d2 (capacity 8 GiB) has the most room but still not enough for the 9 GiB table.
  const Task task =
      test::MakeTask({MakeTable("huge", 9 * kGiBRows, 4)}, {4 * kGiB, 2 * kGiB, 8 * kGiB});
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kDim), task),
                absl::StatusCode::kFailedPrecondition,
                "task is infeasible for dim_greedy: table \"huge\" needs 9.00 GiB but the most "
                "free memory on any device is 8.00 GiB (device 2, capacity 8.00 GiB)");
}

TEST(GreedyPlannerTest, PinnedTablesGoFirstToTheirDevice) {
  // dim_greedy; "p" (dim 8) pinned to d1 adds to d1's sum before the others are placed:
  //   free order a(32), b(16), c(8): a -> d0 (0 < 8); b -> d1 (8 < 32); c -> d1 (24 < 32).
  Task task = test::MakeTask({MakeTable("a", 10, 32), MakeTable("b", 10, 16), MakeTable("c", 10, 8),
                              MakeTable("p", 10, 8)},
                             2, kGiB);
  task.tables[3].pinned_device = 1;
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(0, 1, 1, 1));
  // A pin to the device the greedy would not choose is honoured.
  task.tables[0].pinned_device = 1;
  plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // d1 holds a + p (40); b(16) -> d0; c(8) -> d0 (16 < 40).
  EXPECT_THAT(Devices(*plan), ElementsAre(1, 0, 0, 1));
}

TEST(GreedyPlannerTest, PinnedTableThatDoesNotFitIsInfeasible) {
  Task task = test::MakeTask({MakeTable("a", kGiBRows, 4), MakeTable("b", 2 * kGiBRows, 4)},
                             {4 * kGiB, 2 * kGiB});
  task.tables[0].pinned_device = 1;
  task.tables[1].pinned_device = 1;
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kSize), task),
                absl::StatusCode::kFailedPrecondition,
                "task is infeasible for size_greedy: table \"b\" needs 2.00 GiB but its pinned "
                "device 1 has 1.00 GiB free (capacity 2.00 GiB)");
}

TEST(GreedyPlannerTest, ColocationGroupIsOneUnit) {
  // dim_greedy; group {b, d} weighs 16 + 16 = 32 and ranks by its first table (index 1):
  //   order: a(40), bd(32), c(24): a -> d0, bd -> d1, c -> d1 (32 < 40).
  Task task = test::MakeTask({MakeTable("a", 10, 40), MakeTable("b", 10, 16),
                              MakeTable("c", 10, 24), MakeTable("d", 10, 16)},
                             2, kGiB);
  task.colocate = {{"d", "b"}};
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(0, 1, 1, 1));
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
}

TEST(GreedyPlannerTest, ColocationGroupFollowsItsPin) {
  Task task = test::MakeTask(
      {MakeTable("a", 10, 40), MakeTable("b", 10, 16), MakeTable("c", 10, 24)}, 3, kGiB);
  task.tables[2].pinned_device = 2;
  task.colocate = {{"a", "c"}};
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Devices(*plan), ElementsAre(2, 0, 2));
}

TEST(GreedyPlannerTest, InfeasibleColocationGroupIsNamed) {
  Task task = test::MakeTask({MakeTable("a", 3 * kGiBRows, 4), MakeTable("b", 3 * kGiBRows, 4)}, 2,
                             4 * kGiB);
  task.colocate = {{"a", "b"}};
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kLookup), task),
                absl::StatusCode::kFailedPrecondition,
                "task is infeasible for lookup_greedy: colocation group [\"a\", \"b\"] needs "
                "6.00 GiB but the most free memory on any device is 4.00 GiB");
}

TEST(GreedyPlannerTest, TableThatForbidsTableWiseIsInfeasible) {
  Task task = test::MakeTask({MakeTable("a", 10, 8), MakeTable("cw", 10, 8)}, 2, kGiB);
  task.tables[1].allowed_sharding_types = {ShardingType::kColumnWise};
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kDim), task),
                absl::StatusCode::kFailedPrecondition,
                "task is infeasible for dim_greedy: table \"cw\" does not allow TABLE_WISE");
}

TEST(GreedyPlannerTest, NonFiniteWeightIsRejected) {
  Task task = test::MakeTask({MakeTable("a", 10, 8), MakeTable("b", 10, 8)}, 2, kGiB);
  task.tables[1].pooling_factor = std::nan("");  // ValidateTask's job; the sort must not see it
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kLookup), task),
                absl::StatusCode::kInvalidArgument,
                "tables[1]: table \"b\" has weight nan for lookup_greedy");
}

TEST(GreedyPlannerTest, StopsWhenCancelled) {
  const Task task = test::MakeTask({MakeTable("a", 10, 8)}, 2, kGiB);
  StopSignal stop;
  stop.RequestCancel();
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kDim), task, {}, 0, &stop),
                absl::StatusCode::kCancelled, "cancelled");
  const StopSignal expired(StopSignal::Clock::now() - std::chrono::seconds(1));
  EXPECT_STATUS(RunPlanner(GreedyPlanner(GreedyWeight::kDim), task, {}, 0, &expired),
                absl::StatusCode::kDeadlineExceeded, "deadline");
}

TEST(GreedyPlannerTest, EmptyTaskGivesAnEmptyPlan) {
  const Task task = test::MakeTask({}, 2, kGiB);
  absl::StatusOr<Plan> plan = RunPlanner(GreedyPlanner(GreedyWeight::kDim), task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->tables.empty());
}

}  // namespace
}  // namespace shardplan
