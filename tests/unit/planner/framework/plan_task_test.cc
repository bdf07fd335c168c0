// PlanTask: the pipeline every caller uses (params, time limits, validation, evaluation, record).

#include "planner/framework/plan_task.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/exhaustive/exhaustive_planner.h"
#include "planner/algorithms/greedy/greedy_planner.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;
using ::testing::Pair;

Task SmallTask() {
  return test::MakeTask(
      {MakeTable("a", 100, 16, 2.0), MakeTable("b", 50, 8, 1.0), MakeTable("c", 10, 32, 0.5)}, 2,
      kGiB);
}

// A planner whose output and observations the test controls.
class ScriptedPlanner : public Algorithm {
 public:
  explicit ScriptedPlanner(std::function<absl::StatusOr<Plan>(const Task&)> run) : run_(run) {
    info_.name = "scripted";
    ParamSpec spec;
    spec.name = "depth";
    spec.type = ParamType::kInt;
    spec.default_value = "2";
    spec.min_value = 1;
    info_.params = {spec};
    info_.sharding_types = {ShardingType::kTableWise};
  }
  const AlgorithmInfo& info() const override { return info_; }
  // A planner that may also cut tables into column ranges.
  void AllowColumnWise() { info_.sharding_types.push_back(ShardingType::kColumnWise); }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override {
    seen_deadline = context.stop->deadline();
    seen_cancelled = context.stop->cancelled();
    seen_depth = context.params.GetInt("depth");
    seen_seed = context.seed;
    seen_model = context.cost_model;
    if (context.on_progress) context.on_progress({"scripted: halfway", 0.5});
    return run_(task);
  }

  mutable std::optional<StopSignal::Clock::time_point> seen_deadline;
  mutable bool seen_cancelled = false;
  mutable int64_t seen_depth = 0;
  mutable uint64_t seen_seed = 0;
  mutable const CostModel* seen_model = nullptr;

 private:
  std::function<absl::StatusOr<Plan>(const Task&)> run_;
  AlgorithmInfo info_;
};

ScriptedPlanner ScriptedPlacing(std::vector<int32_t> devices) {
  return ScriptedPlanner([devices](const Task& task) -> absl::StatusOr<Plan> {
    Plan plan = TableWisePlan(task, devices);
    plan.stats.candidates_evaluated = 3;
    return plan;
  });
}

TEST(PlanTaskTest, RecordsEverything) {
  const Task task = SmallTask();
  test::FakeCostModel model;  // compute = columns x pooling
  const ScriptedPlanner planner = ScriptedPlacing({0, 1, 1});
  std::vector<PlanningProgress> progress;
  PlanTaskOptions options;
  options.params = {{"depth", "05"}};
  options.seed = 77;
  options.on_progress = [&](const PlanningProgress& p) { progress.push_back(p); };
  absl::StatusOr<Plan> plan = PlanTask(planner, task, model, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->algorithm, "scripted");
  EXPECT_THAT(plan->parameters, ElementsAre(Pair("depth", "5")));  // resolved, canonical
  EXPECT_EQ(plan->seed, 77u);
  EXPECT_EQ(plan->cost_model, "fake@1");
  EXPECT_EQ(plan->cost_kind, "simulated");
  EXPECT_GE(plan->stats.planning_time_ms, 0.0);
  EXPECT_EQ(plan->stats.candidates_evaluated, 3);  // the planner's own statistics survive
  // Evaluated: device 0 holds a (32), device 1 holds b (8) + c (16).
  ASSERT_EQ(plan->devices.size(), 2u);
  EXPECT_DOUBLE_EQ(plan->devices[0].compute_ms, 32);
  EXPECT_DOUBLE_EQ(plan->devices[1].compute_ms, 24);
  EXPECT_DOUBLE_EQ(plan->cost_ms, 32);
  EXPECT_EQ(plan->bottleneck_device, 0);
  // The planner saw the resolved parameters, the seed and the model.
  EXPECT_EQ(planner.seen_depth, 5);
  EXPECT_EQ(planner.seen_seed, 77u);
  EXPECT_EQ(planner.seen_model, &model);
  EXPECT_FALSE(planner.seen_deadline.has_value());
  // Progress: start, the planner's own report, end.
  ASSERT_EQ(progress.size(), 3u);
  EXPECT_EQ(progress[0].fraction, 0.0);
  EXPECT_THAT(progress[0].message, ::testing::HasSubstr("scripted: planning 3 tables on 2"));
  EXPECT_EQ(progress[1].message, "scripted: halfway");
  EXPECT_EQ(progress[2].fraction, 1.0);
  EXPECT_THAT(progress[2].message, ::testing::HasSubstr("scripted: done"));
}

TEST(PlanTaskTest, DefaultParameters) {
  test::FakeCostModel model;
  absl::StatusOr<Plan> plan = PlanTask(ScriptedPlacing({0, 0, 0}), SmallTask(), model, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->parameters, ElementsAre(Pair("depth", "2")));
}

TEST(PlanTaskTest, WhatThePlannerReportsStaysBesideTheParameters) {
  test::FakeCostModel model;
  const ScriptedPlanner planner([](const Task& task) -> absl::StatusOr<Plan> {
    Plan plan = TableWisePlan(task, {0, 1, 1});
    plan.parameters["tier.dp.rows"] = "12";  // a dotted key: the planner's report (plan.h)
    return plan;
  });
  absl::StatusOr<Plan> plan = PlanTask(planner, SmallTask(), model, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->parameters, ElementsAre(Pair("depth", "2"), Pair("tier.dp.rows", "12")));
}

TEST(PlanTaskTest, ModelThatCannotCostTheTask) {
  test::FakeCostModel model;
  model.supports = absl::FailedPreconditionError("no comm model for 2 devices");
  EXPECT_STATUS(PlanTask(ScriptedPlacing({0, 0, 0}), SmallTask(), model, {}),
                absl::StatusCode::kFailedPrecondition, "no comm model for 2 devices");
}

TEST(PlanTaskTest, BadParameters) {
  test::FakeCostModel model;
  PlanTaskOptions options;
  options.params = {{"depth", "0"}};
  EXPECT_STATUS(PlanTask(ScriptedPlacing({0, 0, 0}), SmallTask(), model, options),
                absl::StatusCode::kInvalidArgument, "parameters.depth: must be at least 1, got 0");
  options.params = {{"width", "3"}};
  EXPECT_STATUS(PlanTask(ScriptedPlacing({0, 0, 0}), SmallTask(), model, options),
                absl::StatusCode::kInvalidArgument, "parameters.width: unknown parameter");
}

TEST(PlanTaskTest, PlannerErrorsPassThrough) {
  test::FakeCostModel model;
  const ScriptedPlanner infeasible([](const Task&) -> absl::StatusOr<Plan> {
    return absl::FailedPreconditionError("task is infeasible for scripted: table \"a\" ...");
  });
  EXPECT_STATUS(PlanTask(infeasible, SmallTask(), model, {}), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for scripted");
}

TEST(PlanTaskTest, InvalidPlanFromAPlannerIsInternal) {
  test::FakeCostModel model;
  const ScriptedPlanner missing([](const Task& task) -> absl::StatusOr<Plan> {
    Plan plan = TableWisePlan(task, {0, 1, 0});
    plan.tables.pop_back();
    return plan;
  });
  EXPECT_STATUS(PlanTask(missing, SmallTask(), model, {}), absl::StatusCode::kInternal,
                "algorithm scripted produced an invalid plan: tables: table \"c\" is missing");
  EXPECT_STATUS(PlanTask(ScriptedPlacing({0, 2, 0}), SmallTask(), model, {}), absl::StatusCode::kInternal,
                "algorithm scripted produced an invalid plan: tables[1].shards[0].device: device "
                "2 does not exist");
}

TEST(PlanTaskTest, OverFullPlanIsFailedPrecondition) {
  Task task = SmallTask();
  task.topology.memory_bytes = {8000, 8000};  // a alone is 6400 bytes, b 1600, c 1280
  test::FakeCostModel model;
  EXPECT_STATUS(PlanTask(ScriptedPlacing({0, 0, 0}), task, model, {}),
                absl::StatusCode::kFailedPrecondition,
                "device 0: needs 0.00 GiB but has 0.00 "
                "GiB (9280 > 8000 bytes)");
}

TEST(PlanTaskTest, AWholeTableLargerThanEveryDeviceIsRefusedByWholeTablePlanners) {
  Task task = SmallTask();
  task.topology.memory_bytes = {6000, 4000};  // a alone is 6400 bytes
  test::FakeCostModel model;
  ScriptedPlanner planner = ScriptedPlacing({0, 1, 1});
  EXPECT_STATUS(PlanTask(planner, task, model, {}), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for scripted: table \"a\" needs 0.00 GiB but the largest "
                "device (device 0) holds 0.00 GiB; only COLUMN_WISE, ROW_WISE or "
                "TABLE_ROW_WISE shards would hold it, and scripted does not place COLUMN_WISE, "
                "ROW_WISE or TABLE_ROW_WISE shards (it places TABLE_WISE)");
  EXPECT_FALSE(planner.seen_model);  // refused before it ran
}

TEST(PlanTaskTest, TablesLargerThanAllDevicesTogetherAreRefusedBeforeAnySearch) {
  Task task = SmallTask();
  task.topology.memory_bytes = {4000, 4000};  // a + b + c = 9280 bytes > 8000
  test::FakeCostModel model;
  ScriptedPlanner planner = ScriptedPlacing({0, 1, 1});
  planner.AllowColumnWise();  // cutting tables moves bytes but never removes any
  EXPECT_STATUS(PlanTask(planner, task, model, {}), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for scripted: its tables need 0.00 GiB (9280 bytes) but the "
                "2 devices hold 0.00 GiB (8000 bytes) together, however they are sharded; the "
                "largest table \"a\" needs 0.00 GiB");
  EXPECT_FALSE(planner.seen_model);  // refused before it ran
}

TEST(PlanTaskTest, TaskTimeLimitBecomesTheDeadline) {
  Task task = SmallTask();
  task.max_planning_time_ms = 5000;
  test::FakeCostModel model;
  const ScriptedPlanner planner = ScriptedPlacing({0, 0, 0});
  const auto before = StopSignal::Clock::now();
  ASSERT_TRUE(PlanTask(planner, task, model, {}).ok());
  const auto after = StopSignal::Clock::now();
  ASSERT_TRUE(planner.seen_deadline.has_value());
  EXPECT_GE(*planner.seen_deadline, before + std::chrono::milliseconds(5000));
  EXPECT_LE(*planner.seen_deadline, after + std::chrono::milliseconds(5000));
}

TEST(PlanTaskTest, AnAbsurdTimeLimitDoesNotOverflowTheDeadline) {
  Task task = SmallTask();                     // not validated: ValidateTask would refuse the limit
  task.max_planning_time_ms = 10000000000000;  // 1e13 ms: past the steady clock's range in ns
  test::FakeCostModel model;
  const ScriptedPlanner planner = ScriptedPlacing({0, 0, 0});
  const auto before = StopSignal::Clock::now();
  ASSERT_TRUE(PlanTask(planner, task, model, {}).ok());
  ASSERT_TRUE(planner.seen_deadline.has_value());
  EXPECT_GE(*planner.seen_deadline, before + std::chrono::milliseconds(kMaxTaskPlanningTimeMs));
}

TEST(PlanTaskTest, EarlierCallerDeadlineWins) {
  Task task = SmallTask();
  task.max_planning_time_ms = 60000;
  test::FakeCostModel model;
  const ScriptedPlanner planner = ScriptedPlacing({0, 0, 0});
  const auto deadline = StopSignal::Clock::now() + std::chrono::seconds(10);
  const StopSignal stop(deadline);
  PlanTaskOptions options;
  options.stop = &stop;
  ASSERT_TRUE(PlanTask(planner, task, model, options).ok());
  EXPECT_EQ(planner.seen_deadline, deadline);
  // And the task's limit wins when it is earlier.
  task.max_planning_time_ms = 1000;
  ASSERT_TRUE(PlanTask(planner, task, model, options).ok());
  EXPECT_LT(*planner.seen_deadline, deadline);
}

TEST(PlanTaskTest, CallerCancellationReachesThePlanner) {
  test::FakeCostModel model;
  const ScriptedPlanner planner = ScriptedPlacing({0, 0, 0});
  StopSignal stop;
  stop.RequestCancel();
  PlanTaskOptions options;
  options.stop = &stop;
  ASSERT_TRUE(PlanTask(planner, SmallTask(), model, options).ok());
  EXPECT_TRUE(planner.seen_cancelled);
  // A planner that polls returns CANCELLED.
  EXPECT_STATUS(PlanTask(GreedyPlanner(GreedyWeight::kDim), SmallTask(), model, options),
                absl::StatusCode::kCancelled, "cancelled");
}

TEST(PlanTaskTest, TaskTimeLimitStopsALongSearch) {
  std::vector<Table> tables;
  for (int i = 0; i < 10; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 10 + i, 8));
  Task task = test::MakeTask(tables, 4, kGiB);  // 4^10 placements
  task.max_planning_time_ms = 20;
  test::FakeCostModel model;
  model.compute_sleep_us = 1;
  PlanTaskOptions options;
  options.params = {{"max_placements", "2000000"}};
  EXPECT_STATUS(PlanTask(ExhaustivePlanner(), task, model, options),
                absl::StatusCode::kDeadlineExceeded, "deadline");
}

TEST(PlanTaskTest, RealPlannerEndToEnd) {
  test::FakeCostModel model;
  absl::StatusOr<Plan> plan =
      PlanTask(GreedyPlanner(GreedyWeight::kLookup), SmallTask(), model, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->algorithm, "lookup_greedy");
  EXPECT_TRUE(plan->parameters.empty());
  // lookup: a (32) -> d0, c (16) -> d1, b (8) -> d1.
  EXPECT_THAT(test::Devices(*plan), ElementsAre(0, 1, 1));
  EXPECT_DOUBLE_EQ(plan->cost_ms, 32);
}

}  // namespace
}  // namespace shardplan
