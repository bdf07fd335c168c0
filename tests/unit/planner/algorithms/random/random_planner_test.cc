// The random baseline: seeded determinism, uniformity, memory, constraints.

#include <cstdint>
#include <map>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/random/random_planner.h"
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
using ::testing::ElementsAreArray;

constexpr int64_t kGiBRows = kGiB / 16;

Task ManyTables(int n, int num_devices) {
  std::vector<Table> tables;
  for (int i = 0; i < n; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 100 + i, 8));
  return test::MakeTask(tables, num_devices, kGiB);
}

TEST(RandomPlannerTest, Info) {
  const RandomPlanner planner;
  EXPECT_EQ(planner.info().name, "random");
  ASSERT_EQ(planner.info().params.size(), 1u);
  EXPECT_EQ(planner.info().params[0].name, "respect_memory");
  EXPECT_EQ(planner.info().params[0].type, ParamType::kBool);
  EXPECT_EQ(planner.info().params[0].default_value, "true");
  EXPECT_THAT(planner.info().sharding_types, ElementsAre(ShardingType::kTableWise));
  EXPECT_FALSE(planner.info().uses_cost_model);
}





TEST(RandomPlannerTest, SameSeedSamePlan) {
  const Task task = ManyTables(40, 4);
  absl::StatusOr<Plan> one = RunPlanner(RandomPlanner(), task, {}, 1234);
  absl::StatusOr<Plan> two = RunPlanner(RandomPlanner(), task, {}, 1234);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(Devices(*one), Devices(*two));
  EXPECT_TRUE(ValidatePlan(task, *one).ok());
}

TEST(RandomPlannerTest, DifferentSeedsDiffer) {
  const Task task = ManyTables(40, 4);
  std::set<std::vector<int32_t>> plans;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), task, {}, seed);
    ASSERT_TRUE(plan.ok()) << plan.status();
    plans.insert(Devices(*plan));
  }
  EXPECT_EQ(plans.size(), 5u);
}

TEST(RandomPlannerTest, UsesEveryDevice) {
  absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), ManyTables(40, 4), {}, 99);
  ASSERT_TRUE(plan.ok());
  const std::vector<int32_t> devices = Devices(*plan);
  EXPECT_EQ(std::set<int32_t>(devices.begin(), devices.end()), (std::set<int32_t>{0, 1, 2, 3}));
}

TEST(RandomPlannerTest, DrawsOncePerTableInTableOrder) {
  // With 4 devices and no memory pressure, table i goes to the i-th engine output mod 4.
  const Task task = ManyTables(10, 4);
  absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), task, {}, 42);
  ASSERT_TRUE(plan.ok());
  std::mt19937_64 engine(42);
  std::vector<int32_t> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(static_cast<int32_t>(engine() % 4));
  EXPECT_THAT(Devices(*plan), ElementsAreArray(expected));
}

TEST(RandomPlannerTest, RespectsMemoryByDefault) {
  // Four 1 GiB tables on four 1 GiB devices: only one table per device fits.
  const Task task = test::MakeTask({MakeTable("a", kGiBRows, 4), MakeTable("b", kGiBRows, 4),
                                    MakeTable("c", kGiBRows, 4), MakeTable("d", kGiBRows, 4)},
                                   4, kGiB);
  for (uint64_t seed = 0; seed < 30; ++seed) {
    absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), task, {}, seed);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<int32_t> devices = Devices(*plan);
    EXPECT_EQ(std::set<int32_t>(devices.begin(), devices.end()).size(), 4u) << seed;
    EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  }
}

TEST(RandomPlannerTest, WithoutRespectForMemoryThePlanMayNotFit) {
  const Task task = test::MakeTask({MakeTable("a", kGiBRows, 4), MakeTable("b", kGiBRows, 4),
                                    MakeTable("c", kGiBRows, 4), MakeTable("d", kGiBRows, 4)},
                                   4, kGiB);
  test::FakeCostModel model;
  int over_full = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    PlanTaskOptions options;
    options.params = {{"respect_memory", "false"}};
    options.seed = seed;
    absl::StatusOr<Plan> plan = PlanTask(RandomPlanner(), task, model, options);
    if (plan.ok()) continue;
    // The reference's OOM: a well-formed plan over a device's capacity.
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << plan.status();
    EXPECT_THAT(test::Message(plan.status()),
                ::testing::MatchesRegex("device [0-3]: needs [234].00 GiB but has 1.00 GiB .*"));
    ++over_full;
  }
  // 4!/4^4 = 9% of the draws fit, so most of the 30 do not.
  EXPECT_GT(over_full, 15);
}

TEST(RandomPlannerTest, InfeasibleNamesTheTable) {
  const Task task =
      test::MakeTask({MakeTable("a", kGiBRows, 4), MakeTable("b", kGiBRows, 4)}, 1, 3 * kGiB / 2);
  EXPECT_STATUS(RunPlanner(RandomPlanner(), task, {}, 5), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for random: table \"b\" needs 1.00 GiB but the most free "
                "memory on any device is 0.50 GiB (device 0, capacity 1.50 GiB)");
}

TEST(RandomPlannerTest, PinsAndColocationHold) {
  Task task = ManyTables(12, 4);
  task.tables[3].pinned_device = 2;
  task.tables[7].pinned_device = 0;
  task.colocate = {{"t1", "t5", "t9"}, {"t7", "t8"}};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), task, {}, seed);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<int32_t> devices = Devices(*plan);
    EXPECT_EQ(devices[3], 2);
    EXPECT_EQ(devices[7], 0);
    EXPECT_EQ(devices[8], 0);
    EXPECT_EQ(devices[1], devices[5]);
    EXPECT_EQ(devices[1], devices[9]);
    EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  }
}

TEST(RandomPlannerTest, PinnedTableThatDoesNotFitIsInfeasible) {
  Task task = test::MakeTask({MakeTable("a", 2 * kGiBRows, 4)}, 2, kGiB);
  task.tables[0].pinned_device = 1;
  EXPECT_STATUS(RunPlanner(RandomPlanner(), task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for random: table \"a\" needs 2.00 GiB but its pinned device "
                "1 has 1.00 GiB free");
}

// Without respect for memory a pinned table goes to its device regardless, like every other
// draw; PlanTask then reports the over-full device.
TEST(RandomPlannerTest, WithoutRespectForMemoryAPinnedTableIsPlacedAnyway) {
  Task task = test::MakeTask({MakeTable("a", 2 * kGiBRows, 4), MakeTable("b", 10, 4)}, 2, kGiB);
  task.tables[0].pinned_device = 1;
  absl::StatusOr<Plan> plan = RunPlanner(RandomPlanner(), task, {{"respect_memory", "false"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Devices(*plan)[0], 1);
  EXPECT_STATUS(ValidatePlan(task, *plan), absl::StatusCode::kFailedPrecondition,
                "device 1: needs 2.00 GiB but has 1.00 GiB");
}

TEST(RandomPlannerTest, TableThatForbidsTableWiseIsInfeasible) {
  Task task = ManyTables(3, 2);
  task.tables[2].allowed_sharding_types = {ShardingType::kRowWise};
  EXPECT_STATUS(RunPlanner(RandomPlanner(), task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for random: table \"t2\" does not allow TABLE_WISE");
}

TEST(RandomPlannerTest, StopsWhenCancelled) {
  StopSignal stop;
  stop.RequestCancel();
  EXPECT_STATUS(RunPlanner(RandomPlanner(), ManyTables(3, 2), {}, 0, &stop),
                absl::StatusCode::kCancelled, "cancelled");
}

}  // namespace
}  // namespace shardplan
