// The torchrec planner end to end through PlanTask: column-wise and row-wise rescue of a table
// too big for any device, determinism, infeasibility, stop signal, constraints, sharding types
// and registration.

#include "planner/algorithms/torchrec/torchrec_planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Params = std::map<std::string, std::string>;

// TorchRec's NoopPerfModel rating of a plan: the largest per-device sum of its shards' perf
// under TorchRec's estimator, which is what analytic@1's per-device totals are.
double TorchRecRating(const Task& task, const Plan& plan) {
  Plan rated = plan;
  const AnalyticCostModel model;
  EXPECT_TRUE(EvaluatePlan(task, model, rated).ok());
  return rated.cost_ms;
}

absl::StatusOr<Plan> PlanWith(const Task& task, Params params = {},
                              const StopSignal* stop = nullptr,
                              std::function<void(const PlanningProgress&)> on_progress = nullptr) {
  static const test::FakeCostModel* const kModel = new test::FakeCostModel();
  PlanTaskOptions options;
  options.params = std::move(params);
  options.stop = stop;
  options.on_progress = std::move(on_progress);
  return PlanTask(TorchRecPlanner(), task, *kModel, options);
}

const TableSharding& Sharding(const Plan& plan, const std::string& table) {
  for (const TableSharding& sharding : plan.tables) {
    if (sharding.table == table) return sharding;
  }
  ADD_FAILURE() << "no table " << table;
  static const TableSharding kNone;
  return kNone;
}

// "big" (64 MiB: 262144 rows x dim 64) cannot sit whole on any 48 MiB device; the rest are small.
Task BigTableTask() {
  constexpr int64_t kMiB = int64_t{1} << 20;
  return MakeTask({MakeTable("big", 262144, 64, 4.0), MakeTable("s1", 10000, 32, 2.0),
                   MakeTable("s2", 20000, 16, 8.0), MakeTable("s3", 5000, 128, 1.0),
                   MakeTable("s4", 40000, 8, 20.0)},
                  4, 48 * kMiB);
}

TEST(TorchRecPlannerTest, CutsATableTooBigForAnyDeviceIntoEqualColumnShards) {
  absl::StatusOr<Plan> plan = PlanWith(BigTableTask());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(BigTableTask(), *plan).ok());
  const TableSharding& big = Sharding(*plan, "big");
  EXPECT_EQ(big.sharding_type, ShardingType::kColumnWise);
  ASSERT_GE(big.shards.size(), 2u);
  const int32_t width = 64 / static_cast<int32_t>(big.shards.size());
  for (size_t s = 0; s < big.shards.size(); ++s) {
    EXPECT_EQ(big.shards[s].column_count, width);
    EXPECT_EQ(big.shards[s].column_offset, width * static_cast<int32_t>(s));
    EXPECT_EQ(big.shards[s].row_count, 262144);
  }
  // One split step per halving, as NeuroShard records them (k equal shards: k - 1 steps).
  EXPECT_EQ(std::count(plan->stats.column_splits.begin(), plan->stats.column_splits.end(), "big"),
            static_cast<int64_t>(big.shards.size()) - 1);
  EXPECT_EQ(plan->algorithm, "torchrec");
  EXPECT_EQ(plan->parameters, (Params{{"min_partition", "4"}, {"sharding_types", "all"}}));
  EXPECT_GT(plan->stats.candidates_evaluated, 1);
  EXPECT_FALSE(plan->stats.anytime_result);
}

TEST(TorchRecPlannerTest, SmallTablesStayWholeAndBalanceTorchRecPerf) {
  // Nothing needs cutting and every CW shard costs more than its share: all table-wise, spread.
  const Task task = MakeTask({MakeTable("a", 1000, 64, 10.0), MakeTable("b", 1000, 64, 10.0),
                              MakeTable("c", 1000, 64, 10.0), MakeTable("d", 1000, 64, 10.0)},
                             4, kGiB);
  absl::StatusOr<Plan> plan = PlanWith(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<int32_t> devices;
  for (const TableSharding& sharding : plan->tables) {
    EXPECT_EQ(sharding.sharding_type, ShardingType::kTableWise) << sharding.table;
    devices.push_back(sharding.shards[0].device);
  }
  std::sort(devices.begin(), devices.end());
  EXPECT_THAT(devices, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(plan->stats.column_splits.empty());
}

TEST(TorchRecPlannerTest, SamePlanTwice) {
  absl::StatusOr<Plan> first = PlanWith(BigTableTask());
  absl::StatusOr<Plan> second = PlanWith(BigTableTask());
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->tables.size(), second->tables.size());
  for (size_t k = 0; k < first->tables.size(); ++k) {
    const std::vector<Shard>& a = first->tables[k].shards;
    const std::vector<Shard>& b = second->tables[k].shards;
    ASSERT_EQ(a.size(), b.size());
    for (size_t s = 0; s < a.size(); ++s) {
      EXPECT_EQ(a[s].device, b[s].device);
      EXPECT_EQ(a[s].column_offset, b[s].column_offset);
    }
  }
  EXPECT_EQ(first->cost_ms, second->cost_ms);
  EXPECT_EQ(first->stats.column_splits, second->stats.column_splits);
}

TEST(TorchRecPlannerTest, MinPartitionBoundsTheShardWidth) {
  absl::StatusOr<Plan> plan = PlanWith(BigTableTask(), {{"min_partition", "32"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const Shard& shard : Sharding(*plan, "big").shards) EXPECT_GE(shard.column_count, 32);
  // 64 columns cannot be cut into blocks of at least 48 that are multiples of 4 dividing 64.
  EXPECT_STATUS(PlanWith(BigTableTask(), {{"min_partition", "48"}}),
                absl::StatusCode::kFailedPrecondition, "task is infeasible for torchrec");
  EXPECT_STATUS(PlanWith(BigTableTask(), {{"min_partition", "2"}}),
                absl::StatusCode::kInvalidArgument, "parameters.min_partition");
}

TEST(TorchRecPlannerTest, InfeasibleTasksNameTheSmallestProposal) {
  // 8 MiB of tables on 2 x 1 MiB: refused before any proposal (RunPlanning's total check).
  Task task = MakeTask({MakeTable("a", 16384, 64), MakeTable("b", 16384, 64)}, 2, 1 << 20);
  EXPECT_STATUS(PlanWith(task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for torchrec: its tables need 0.01 GiB");
  // The planner's own check (TorchRec's INSUFFICIENT_STORAGE), run directly: 4 MiB fits 2 x 3
  // MiB in total, but as data_parallel only every device holds a replica.
  task = MakeTask({MakeTable("a", 16384, 64)}, 2, 3 << 20);
  task.tables[0].allowed_sharding_types = {ShardingType::kDataParallel};
  const AnalyticCostModel analytic;  // costs data_parallel
  const absl::StatusOr<Plan> replicas =
      test::RunPlanner(TorchRecPlanner(), task, {}, 0, nullptr, &analytic);
  EXPECT_STATUS(replicas, absl::StatusCode::kFailedPrecondition,
                "task is infeasible for torchrec: the smallest of ");
  EXPECT_STATUS(replicas, absl::StatusCode::kFailedPrecondition,
                "proposals needs 0.01 GiB but the devices hold 0.01 GiB in total (2 devices");
  // Enough memory in total (4 MiB on 2 x 3 MiB), but the pinned table must sit whole on
  // device 0.
  task = MakeTask({MakeTable("a", 16384, 64)}, 2, 3 << 20);
  task.tables[0].pinned_device = 0;
  EXPECT_STATUS(PlanWith(task), absl::StatusCode::kFailedPrecondition, "none of 1 proposals fits");
}

TEST(TorchRecPlannerTest, StopSignalIsHonoured) {
  StopSignal cancelled;
  cancelled.RequestCancel();
  EXPECT_STATUS(PlanWith(BigTableTask(), {}, &cancelled), absl::StatusCode::kCancelled,
                "cancelled");
  const StopSignal past(StopSignal::Clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(PlanWith(BigTableTask(), {}, &past).status().code(),
            absl::StatusCode::kDeadlineExceeded);

  // Cancelled after some proposals: the best plan so far, flagged.
  StopSignal later;
  int reports = 0;
  absl::StatusOr<Plan> plan =
      PlanWith(BigTableTask(), {}, &later, [&](const PlanningProgress& progress) {
        if (progress.message.find("proposal") == std::string::npos) return;
        EXPECT_THAT(progress.message, HasSubstr("best perf"));
        if (++reports == 3) later.RequestCancel();
      });
  // The first proposals (every table's fastest option) may not fit; then the stop's status.
  if (plan.ok()) {
    EXPECT_TRUE(plan->stats.anytime_result);
    EXPECT_TRUE(ValidatePlan(BigTableTask(), *plan).ok());
  } else {
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kCancelled);
  }
  EXPECT_GE(reports, 3);
}

TEST(TorchRecPlannerTest, ReportsProgressPerProposal) {
  std::vector<std::string> messages;
  absl::StatusOr<Plan> plan =
      PlanWith(BigTableTask(), {}, nullptr, [&](const PlanningProgress& progress) {
        messages.push_back(progress.message);
        EXPECT_GE(progress.fraction, 0.0);
        EXPECT_LE(progress.fraction, 1.0);
      });
  ASSERT_TRUE(plan.ok()) << plan.status();
  bool saw_proposal = false;
  for (const std::string& message : messages) {
    if (message.find("proposal") != std::string::npos) {
      saw_proposal = true;
      EXPECT_THAT(message, HasSubstr(" of <="));
    }
  }
  EXPECT_TRUE(saw_proposal);
}

TEST(TorchRecPlannerTest, TableWiseOnlyMeansNoColumnShards) {
  Task task = BigTableTask();
  for (Table& table : task.tables) table.allowed_sharding_types = {ShardingType::kTableWise};
  // "big" must be cut to fit, and may not be.
  EXPECT_STATUS(PlanWith(task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for torchrec");
  task.topology.memory_bytes.assign(4, kGiB);
  absl::StatusOr<Plan> plan = PlanWith(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const TableSharding& sharding : plan->tables) {
    EXPECT_EQ(sharding.sharding_type, ShardingType::kTableWise);
    EXPECT_EQ(sharding.shards.size(), 1u);
  }
}

TEST(TorchRecPlannerTest, PinsColocationAndColumnWiseOnlyAreHonoured) {
  Task task = BigTableTask();
  task.topology.memory_bytes.assign(4, kGiB);
  task.tables[1].pinned_device = 3;  // s1
  task.colocate = {{"s2", "s3"}};
  task.tables[4].allowed_sharding_types = {ShardingType::kColumnWise};  // s4, dim 8
  absl::StatusOr<Plan> plan = PlanWith(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  EXPECT_EQ(Sharding(*plan, "s1").shards[0].device, 3);
  EXPECT_EQ(Sharding(*plan, "s2").shards[0].device, Sharding(*plan, "s3").shards[0].device);
  EXPECT_EQ(Sharding(*plan, "s4").sharding_type, ShardingType::kColumnWise);

  task.tables[0].allowed_sharding_types = {ShardingType::kRowWise};
  EXPECT_STATUS(PlanWith(task), absl::StatusCode::kFailedPrecondition,
                "tables[0].allowed_sharding_types");
}

TEST(TorchRecPlannerTest, RegisteredWithItsInfo) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  absl::StatusOr<const Algorithm*> planner = registry.Find("torchrec");
  ASSERT_TRUE(planner.ok()) << planner.status();
  const AlgorithmInfo& info = (*planner)->info();
  EXPECT_FALSE(info.uses_cost_model);
  EXPECT_THAT(info.sharding_types,
              ElementsAre(ShardingType::kTableWise, ShardingType::kColumnWise,
                          ShardingType::kRowWise, ShardingType::kTableRowWise,
                          ShardingType::kDataParallel));
  ASSERT_EQ(info.params.size(), 2u);
  EXPECT_EQ(info.params[0].name, "min_partition");
  EXPECT_EQ(info.params[0].default_value, "4");
  EXPECT_EQ(info.params[1].name, "sharding_types");
  EXPECT_EQ(info.params[1].default_value, "all");
}

absl::StatusOr<Plan> PlanWithAnalytic(const Task& task, Params params = {}) {
  static const AnalyticCostModel* const kAnalytic = new AnalyticCostModel();
  PlanTaskOptions options;
  options.params = std::move(params);
  return PlanTask(TorchRecPlanner(), task, *kAnalytic, options);
}

// A 30 GiB table and four small ones on eight 16 GiB devices (one host).
Task TableLargerThanAnyDevice() {
  Task task = MakeTask({test::TableOfBytes("huge", int64_t{30} << 30, 64, 4.0),
                        MakeTable("a", 100000, 64, 8.0), MakeTable("b", 50000, 32, 2.0),
                        MakeTable("c", 200000, 16, 1.0), MakeTable("d", 1000, 128, 30.0)},
                       8, 16 * kGiB);
  task.batch_size = 8 * 512;
  return task;
}

TEST(TorchRecPlannerTest, ATableLargerThanAnyDeviceIsShardedByRows) {
  Task task = TableLargerThanAnyDevice();
  task.tables[0].allowed_sharding_types = {ShardingType::kTableWise, ShardingType::kRowWise,
                                           ShardingType::kDataParallel};
  absl::StatusOr<Plan> plan = PlanWithAnalytic(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  const TableSharding& huge = Sharding(*plan, "huge");
  EXPECT_EQ(huge.sharding_type, ShardingType::kRowWise);
  ASSERT_EQ(huge.shards.size(), 8u);
  for (int d = 0; d < 8; ++d) EXPECT_EQ(huge.shards[d].device, d);  // uniform: shard i on i
  EXPECT_EQ(plan->cost_model, "analytic@1");
  EXPECT_TRUE(std::isfinite(plan->cost_ms));
}

TEST(TorchRecPlannerTest, WithoutRowTypesATableLargerThanAnyDeviceIsNamed) {
  Task task = TableLargerThanAnyDevice();
  task.tables[0].allowed_sharding_types = {ShardingType::kTableWise};
  // Refused before the search (RunPlanning's CheckOversizedTables), naming what excludes the
  // types that would hold it.
  EXPECT_STATUS(PlanWithAnalytic(task), absl::StatusCode::kFailedPrecondition,
                "table \"huge\" needs 30.00 GiB but the largest device (device 0) holds 16.00 "
                "GiB; only COLUMN_WISE, ROW_WISE or TABLE_ROW_WISE shards would hold it, and "
                "tables[0].allowed_sharding_types excludes COLUMN_WISE, ROW_WISE, TABLE_ROW_WISE "
                "(it allows TABLE_WISE)");
}

TEST(TorchRecPlannerTest, TheFullTypeSetNeverRatesWorseThanTableAndColumnWise) {
  // Rated by TorchRec's own perf model (the analytic estimator the search uses), the plan over
  // every type is at most the TW/CW-only plan's: the latter's proposals are still made.
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<Table> tables;
    for (int t = 0; t < 12; ++t) {
      tables.push_back(MakeTable("t" + std::to_string(t), 1000 + 37000 * ((t * seed) % 7),
                                 16 << (t % 4), 1.0 + (t * seed) % 9));
    }
    Task task = MakeTask(tables, 8, kGiB);
    task.topology.devices_per_host = 4;
    absl::StatusOr<Plan> all = PlanWithAnalytic(task);
    absl::StatusOr<Plan> column_level =
        PlanWithAnalytic(task, {{"sharding_types", "table_wise,column_wise"}});
    ASSERT_TRUE(all.ok() && column_level.ok()) << all.status() << column_level.status();
    EXPECT_LE(TorchRecRating(task, *all), TorchRecRating(task, *column_level) + 1e-12) << seed;
  }
}

TEST(TorchRecPlannerTest, TypesTheModelCannotCostAreLeftOutOrRefusedWhenAskedFor) {
  // FakeCostModel costs TW and CW only: "all" quietly keeps those, an explicit row_wise is an
  // error naming the model, and a bad name is an invalid argument.
  absl::StatusOr<Plan> plan = PlanWith(BigTableTask());
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const TableSharding& sharding : plan->tables) {
    EXPECT_TRUE(IsColumnLevel(sharding.sharding_type)) << sharding.table;
  }
  EXPECT_STATUS(PlanWith(BigTableTask(), {{"sharding_types", "table_wise,row_wise"}}),
                absl::StatusCode::kFailedPrecondition,
                "params.sharding_types: cost model fake@1 cannot cost ROW_WISE shards");
  EXPECT_STATUS(PlanWith(BigTableTask(), {{"sharding_types", "sideways"}}),
                absl::StatusCode::kInvalidArgument,
                "params.sharding_types: unknown sharding type \"sideways\"");
}

TEST(TorchRecPlannerTest, TableRowWiseLandsOnTheDevicesOfOneHost) {
  Task task = TableLargerThanAnyDevice();
  task.topology.devices_per_host = 4;
  task.tables[0].allowed_sharding_types = {ShardingType::kTableRowWise};
  task.tables[0].rows /= 2;  // 15 GiB: fits one host of four 16 GiB devices by rows
  absl::StatusOr<Plan> plan = PlanWithAnalytic(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const TableSharding& huge = Sharding(*plan, "huge");
  EXPECT_EQ(huge.sharding_type, ShardingType::kTableRowWise);
  ASSERT_EQ(huge.shards.size(), 4u);
  const int host = huge.shards[0].device / 4;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(huge.shards[i].device, host * 4 + i);
  EXPECT_EQ(plan->local_world_size, 4);
}

}  // namespace
}  // namespace shardplan
