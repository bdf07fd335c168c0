// NeuroShard over every sharding type: row shards for tables too large or too hot for one
// device, replicas for small tables, allowed types, today's plans where only the column level
// is costed, the torchrec plan in the portfolio, determinism.

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/algorithms/neuroshard/neuroshard_planner.h"
#include "planner/algorithms/neuroshard/table_layouts.h"
#include "planner/algorithms/neuroshard/type_refinement.h"
#include "planner/domain/memory.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/algorithms/neuroshard/neuroshard_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using Params = std::map<std::string, std::string>;

absl::StatusOr<Plan> PlanWith(const Algorithm& planner, const Task& task, const CostModel& model,
                              Params params = {}) {
  PlanTaskOptions options;
  options.params = std::move(params);
  return PlanTask(planner, task, model, options);
}

absl::StatusOr<Plan> NeuroShardPlan(const Task& task, const CostModel& model, Params params = {}) {
  return PlanWith(NeuroShardPlanner(), task, model, std::move(params));
}

const AnalyticCostModel& Analytic() {
  static const AnalyticCostModel* const kModel = new AnalyticCostModel();
  return *kModel;
}

// The fake model's formulas for every type: a shard computes its share of the lookups
// (LookupShare), and each collective costs `ms_per_byte` per byte on every device it charges.
struct EveryTypeModel : test::FakeCostModel {
  double ms_per_byte = 1e-8;
  bool CostsShardingType(ShardingType) const override { return true; }
  double ComputeCost(const CostContext&, std::span<const ShardView> shards) const override {
    double cost = fixed_ms;
    for (const ShardView& shard : shards) {
      cost += compute_per_lookup_column * shard.columns * shard.table->pooling_factor *
              LookupShare(shard);
    }
    return cost;
  }
  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand> demands) const override {
    const size_t n = static_cast<size_t>(context.topology->num_devices());
    CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    for (const CollectiveDemand& demand : demands) {
      for (int32_t device : demand.devices) {
        (demand.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms)[device] +=
            ms_per_byte * demand.bytes;
      }
    }
    return costs;
  }
};

// The 26 Criteo-Kaggle cardinalities, pooling factor 1, dim 16.
Task CriteoShaped(int num_devices, int64_t device_bytes) {
  const int64_t rows[] = {1460,  583,  10131227, 2202608, 305, 24,     12517,   633,   3,
                          93145, 5683, 8351593,  3194,    27,  14992,  5461306, 10,    5652,
                          2173,  4,    7046547,  18,      15,  286181, 105,     142572};
  std::vector<Table> tables;
  for (size_t i = 0; i < std::size(rows); ++i) {
    tables.push_back(MakeTable(absl::StrCat("c", i < 10 ? "0" : "", i), rows[i], 16, 1.0));
  }
  return test::MakeTask(std::move(tables), num_devices, device_bytes);
}

std::map<ShardingType, int> TypeCounts(const shardplan::Plan& plan) {
  std::map<ShardingType, int> counts;
  for (const TableSharding& sharding : plan.tables) ++counts[sharding.sharding_type];
  return counts;
}

const TableSharding& ShardingOf(const shardplan::Plan& plan, const std::string& table) {
  for (const TableSharding& sharding : plan.tables) {
    if (sharding.table == table) return sharding;
  }
  ADD_FAILURE() << "no table " << table;
  return plan.tables.front();
}

TEST(NeuroShardTypesTest, DeclaresEveryType) {
  EXPECT_THAT(NeuroShardPlanner().info().sharding_types,
              ::testing::UnorderedElementsAre(ShardingType::kTableWise, ShardingType::kColumnWise,
                                              ShardingType::kRowWise, ShardingType::kTableRowWise,
                                              ShardingType::kDataParallel));
}

TEST(NeuroShardTypesTest, TableLargerThanAnyDeviceGetsRowShards) {
  // 3 GiB of dim 4 on four 1 GiB devices: no column split can hold it, row shards can.
  const Task task = test::MakeTask({test::TableOfBytes("huge", 3 * kGiB, 4),
                                    MakeTable("a", 1000, 16), MakeTable("b", 5000, 32, 4.0)},
                                   4, kGiB);
  absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, Analytic(), {{"baselines", "false"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  const ShardingType huge = ShardingOf(*plan, "huge").sharding_type;
  EXPECT_TRUE(huge == ShardingType::kRowWise || huge == ShardingType::kTableRowWise)
      << ShardingTypeName(huge);
  // The reference's search alone cannot: it names the table.
  EXPECT_STATUS(NeuroShardPlan(task, Analytic(), {{"row_level", "false"}}),
                absl::StatusCode::kFailedPrecondition, "table \"huge\" needs 3.00 GiB");
}

TEST(NeuroShardTypesTest, SmallTablesOnManyDevicesBecomeDataParallel) {
  const Task task = CriteoShaped(16, 4 * kGiB);
  absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, Analytic(), {{"baselines", "false"}});
  absl::StatusOr<shardplan::Plan> column =
      NeuroShardPlan(task, Analytic(), {{"baselines", "false"}, {"row_level", "false"}});
  ASSERT_TRUE(plan.ok() && column.ok()) << plan.status() << column.status();
  EXPECT_LT(plan->cost_ms, column->cost_ms);
  EXPECT_GT(TypeCounts(*plan)[ShardingType::kDataParallel], 0);
  for (const TableSharding& sharding : plan->tables) {
    if (sharding.sharding_type != ShardingType::kDataParallel) continue;
    EXPECT_EQ(sharding.shards.size(), 16u) << sharding.table;
  }
  // The largest tables stay sharded: a replica of 10M rows costs more than it saves.
  EXPECT_NE(ShardingOf(*plan, "c02").sharding_type, ShardingType::kDataParallel);
  EXPECT_EQ(TypeCounts(*column)[ShardingType::kDataParallel], 0);
}

TEST(NeuroShardTypesTest, HotTableIsRowShardedWhenThatIsCheaper) {
  EveryTypeModel model;
  model.compute_per_lookup_column = 0.01;
  // 64 ms of lookups in one table of 4 columns (too narrow to split), a few small ones:
  // table-wise, one device carries it all; a replica's all-reduce of 160 MB costs more than row
  // shards' reduce-scatter and all-gather.
  const Task task =
      test::MakeTask({MakeTable("hot", 10'000'000, 4, 1600.0), MakeTable("a", 1000, 8),
                      MakeTable("b", 1000, 8), MakeTable("c", 1000, 8)},
                     4, 4 * kGiB);
  absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, model, {{"baselines", "false"}});
  absl::StatusOr<shardplan::Plan> column =
      NeuroShardPlan(task, model, {{"baselines", "false"}, {"row_level", "false"}});
  ASSERT_TRUE(plan.ok() && column.ok()) << plan.status() << column.status();
  EXPECT_EQ(ShardingOf(*plan, "hot").sharding_type, ShardingType::kRowWise);
  EXPECT_EQ(ShardingOf(*plan, "hot").shards.size(), 4u);
  EXPECT_LT(plan->cost_ms, column->cost_ms);
  // The small tables gain nothing from a replica under this model: they stay table-wise.
  EXPECT_EQ(ShardingOf(*plan, "a").sharding_type, ShardingType::kTableWise);
}

TEST(NeuroShardTypesTest, RespectsAllowedTypesPinsAndColocation) {
  Task task = CriteoShaped(8, 4 * kGiB);
  // The small tables that would go data-parallel may not; one may only be row-wise; one is
  // pinned and two are colocated, which keeps them whole on one device.
  for (Table& table : task.tables) {
    if (table.rows < 20000) {
      table.allowed_sharding_types = {ShardingType::kTableWise, ShardingType::kRowWise};
    }
  }
  task.tables[4].allowed_sharding_types = {ShardingType::kRowWise};
  task.tables[5].pinned_device = 3;
  task.colocate = {{task.tables[6].name, task.tables[7].name}};
  absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, Analytic());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  EXPECT_EQ(ShardingOf(*plan, task.tables[4].name).sharding_type, ShardingType::kRowWise);
  EXPECT_EQ(ShardingOf(*plan, task.tables[5].name).sharding_type, ShardingType::kTableWise);
  EXPECT_EQ(ShardingOf(*plan, task.tables[5].name).shards[0].device, 3);
  EXPECT_EQ(ShardingOf(*plan, task.tables[6].name).shards[0].device,
            ShardingOf(*plan, task.tables[7].name).shards[0].device);
  for (const Table& table : task.tables) {
    EXPECT_TRUE(table.Allows(ShardingOf(*plan, table.name).sharding_type)) << table.name;
  }
}

TEST(NeuroShardTypesTest, ATableThatForbidsTableWiseIsOneColumnWiseShardWhenUnsplit) {
  Task task = test::SixTables(2);
  task.tables[4].allowed_sharding_types = {ShardingType::kColumnWise};  // "e", dim 8
  for (const Params& params : {Params{{"beam_search", "false"}}, Params{}}) {
    absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, test::NonAdditiveModel(), params);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
    EXPECT_EQ(ShardingOf(*plan, "e").sharding_type, ShardingType::kColumnWise);
  }
  task.tables[4].allowed_sharding_types = {ShardingType::kDataParallel};
  task.tables[4].pinned_device = 0;  // so that it cannot leave the column level
  EXPECT_STATUS(NeuroShardPlan(task, Analytic()), absl::StatusCode::kFailedPrecondition,
                "table \"e\" allows neither TABLE_WISE nor COLUMN_WISE (allowed: DATA_PARALLEL)");
}

// A model that costs the column level only, or a task whose tables allow only it, gives the
// plan of the column-level search, shard for shard.
TEST(NeuroShardTypesTest, ColumnLevelOnlyGivesTodaysPlan) {
  const test::NonAdditiveModel column_model;
  const Task criteo = CriteoShaped(8, 4 * kGiB);
  const Task six = test::SixTables(3);
  Task column_only = criteo;
  for (Table& table : column_only.tables) {
    table.allowed_sharding_types = {ShardingType::kTableWise, ShardingType::kColumnWise};
  }
  const std::vector<std::pair<const CostModel*, const Task*>> cases = {
      {&column_model, &criteo}, {&column_model, &six}, {&Analytic(), &column_only}};
  for (const auto& [model, task] : cases) {
    absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(*task, *model, {{"baselines", "false"}});
    absl::StatusOr<shardplan::Plan> today =
        NeuroShardPlan(*task, *model, {{"baselines", "false"}, {"row_level", "false"}});
    ASSERT_TRUE(plan.ok() && today.ok()) << plan.status() << today.status();
    ASSERT_EQ(plan->tables.size(), today->tables.size());
    for (size_t t = 0; t < plan->tables.size(); ++t) {
      EXPECT_EQ(plan->tables[t].sharding_type, today->tables[t].sharding_type);
      ASSERT_EQ(plan->tables[t].shards.size(), today->tables[t].shards.size());
      for (size_t s = 0; s < plan->tables[t].shards.size(); ++s) {
        EXPECT_EQ(plan->tables[t].shards[s].device, today->tables[t].shards[s].device);
        EXPECT_EQ(plan->tables[t].shards[s].column_offset,
                  today->tables[t].shards[s].column_offset);
      }
    }
    EXPECT_EQ(plan->cost_ms, today->cost_ms);
    EXPECT_EQ(plan->stats.column_splits, today->stats.column_splits);
    EXPECT_EQ(plan->stats.cost_model_calls, today->stats.cost_model_calls);
  }
}

// An algorithm whose plan is fixed: every table data-parallel, or every table on device 0.
class FixedPlanAlgorithm : public Algorithm {
 public:
  explicit FixedPlanAlgorithm(bool replicate) : replicate_(replicate) {
    info_.name = replicate ? "replicate_all" : "all_on_zero";
  }
  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<shardplan::Plan> Run(const Task& task, const PlanningContext&) const override {
    shardplan::Plan plan;
    for (const Table& table : task.tables) {
      TableSharding sharding{
          .table = table.name,
          .sharding_type = replicate_ ? ShardingType::kDataParallel : ShardingType::kTableWise,
          .shards = {}};
      for (int d = 0; d < (replicate_ ? task.topology.num_devices() : 1); ++d) {
        sharding.shards.push_back(Shard{.device = d,
                                        .row_offset = 0,
                                        .row_count = table.rows,
                                        .column_offset = 0,
                                        .column_count = table.dim});
      }
      plan.tables.push_back(std::move(sharding));
    }
    return plan;
  }

 private:
  bool replicate_;
  AlgorithmInfo info_;
};

TEST(NeuroShardTypesTest, PortfolioTakesAnotherAlgorithmsPlanWhenCheaper) {
  // All-to-all is dear and collectives free: replicas of every table beat any column-level plan.
  EveryTypeModel model;
  model.bw_per_column = 1.0;
  model.fw_per_column = 1.0;
  model.ms_per_byte = 0.0;
  std::vector<Table> tables;
  for (int i = 0; i < 6; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 1000, 16, 1.0 + i));
  const Task task = test::MakeTask(std::move(tables), 3, kGiB);
  const FixedPlanAlgorithm replicate(true);
  const FixedPlanAlgorithm all_on_zero(false);
  const NeuroShardPlanner with_portfolio({&all_on_zero, &replicate});
  const Params column_search = {{"row_level", "false"}};
  absl::StatusOr<shardplan::Plan> plan = PlanWith(with_portfolio, task, model, column_search);
  absl::StatusOr<shardplan::Plan> alone = NeuroShardPlan(task, model, column_search);
  ASSERT_TRUE(plan.ok() && alone.ok()) << plan.status() << alone.status();
  EXPECT_EQ(TypeCounts(*plan)[ShardingType::kDataParallel], 6);
  EXPECT_LT(plan->cost_ms, alone->cost_ms);
  // A dearer plan stays out.
  const NeuroShardPlanner with_poor({&all_on_zero});
  absl::StatusOr<shardplan::Plan> kept = PlanWith(with_poor, task, model, column_search);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->cost_ms, alone->cost_ms);
}

TEST(NeuroShardTypesTest, RegisteredPlannerNeverRatesWorseThanTorchRec) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  for (const Task& task : {CriteoShaped(8, 4 * kGiB), test::SixTables(3)}) {
    absl::StatusOr<shardplan::Plan> neuroshard =
        PlanWith(**registry.Find("neuroshard"), task, Analytic());
    absl::StatusOr<shardplan::Plan> torchrec =
        PlanWith(**registry.Find("torchrec"), task, Analytic());
    ASSERT_TRUE(neuroshard.ok() && torchrec.ok()) << neuroshard.status() << torchrec.status();
    EXPECT_LE(neuroshard->cost_ms, torchrec->cost_ms * (1 + 1e-9));
  }
}

TEST(NeuroShardTypesTest, DeterministicAcrossRunsAndThreads) {
  const Task task = CriteoShaped(8, 4 * kGiB);
  absl::StatusOr<shardplan::Plan> first = NeuroShardPlan(task, Analytic());
  ASSERT_TRUE(first.ok()) << first.status();
  for (const char* threads : {"1", "2"}) {
    absl::StatusOr<shardplan::Plan> again =
        NeuroShardPlan(task, Analytic(), {{"threads", threads}});
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->cost_ms, first->cost_ms) << threads;
    ASSERT_EQ(again->tables.size(), first->tables.size());
    for (size_t t = 0; t < first->tables.size(); ++t) {
      EXPECT_EQ(again->tables[t].sharding_type, first->tables[t].sharding_type);
      ASSERT_EQ(again->tables[t].shards.size(), first->tables[t].shards.size());
      for (size_t s = 0; s < first->tables[t].shards.size(); ++s) {
        EXPECT_EQ(again->tables[t].shards[s].device, first->tables[t].shards[s].device);
        EXPECT_EQ(again->tables[t].shards[s].row_offset, first->tables[t].shards[s].row_offset);
      }
    }
    EXPECT_EQ(again->stats.cost_model_calls, first->stats.cost_model_calls);
  }
}

// Random constrained tasks on hosts of devices with unequal memory, every type under
// analytic@1: every plan is valid (memory with replicas on every device, allowed types, one host
// per TABLE_ROW_WISE table, pins, colocation) and the same on a second run.
TEST(NeuroShardTypesTest, ValidOnRandomConstrainedTasks) {
  std::mt19937_64 rng(27);
  const ShardingType kTypes[] = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                 ShardingType::kRowWise, ShardingType::kTableRowWise,
                                 ShardingType::kDataParallel};
  int planned = 0;
  int row_level_tables = 0;
  for (int k = 0; k < 12; ++k) {
    std::vector<Table> tables;
    const int count = 6 + static_cast<int>(rng() % 6);
    for (int t = 0; t < count; ++t) {
      Table table = MakeTable(absl::StrCat("t", t), 3 + static_cast<int64_t>(rng() % 3'000'000),
                              4 << (rng() % 5), 1.0 + static_cast<double>(rng() % 300));
      if (rng() % 3 == 0) {  // a random non-empty subset of the types
        for (ShardingType type : kTypes) {
          if (rng() % 2 == 0) table.allowed_sharding_types.push_back(type);
        }
        if (table.allowed_sharding_types.empty()) {
          table.allowed_sharding_types = {kTypes[rng() % 5]};
        }
      }
      tables.push_back(std::move(table));
    }
    std::vector<int64_t> capacities;
    const int devices = 4 + static_cast<int>(rng() % 4);
    for (int d = 0; d < devices; ++d) capacities.push_back(kGiB / 2 + (rng() % 4) * kGiB / 4);
    Task task = test::MakeTask(std::move(tables), capacities);
    task.topology.devices_per_host = 2 + static_cast<int>(rng() % 2);
    if (k % 2 == 0) {
      task.tables[0].allowed_sharding_types.clear();
      task.tables[0].pinned_device = static_cast<int32_t>(rng() % devices);
      task.tables[1].allowed_sharding_types.clear();
      task.tables[2].allowed_sharding_types.clear();
      task.colocate = {{task.tables[1].name, task.tables[2].name}};
    }
    absl::StatusOr<shardplan::Plan> plan = NeuroShardPlan(task, Analytic());
    if (!plan.ok()) {
      // Only a task that some table makes infeasible may fail, and then with its name.
      EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << plan.status();
      continue;
    }
    EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << k << ": " << ValidatePlan(task, *plan);
    absl::StatusOr<shardplan::Plan> again = NeuroShardPlan(task, Analytic());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->cost_ms, plan->cost_ms) << k;
    ++planned;
    for (const TableSharding& sharding : plan->tables) {
      if (!IsColumnLevel(sharding.sharding_type)) ++row_level_tables;
    }
  }
  // The draws are plannable (12 of 12 today) and use the row level (61 tables today).
  EXPECT_GE(planned, 10);
  EXPECT_GE(row_level_tables, 20);
}

// The refinement refuses a move that takes a few microseconds off the busiest device by putting
// milliseconds on others: a tiny replica turned into row shards on the other host.
TEST(NeuroShardTypesTest, RefinementRefusesShiftingWorkOffTheBottleneckAtAHigherTotal) {
  EveryTypeModel model;
  model.compute_per_lookup_column = 0.01;
  model.ms_per_byte = 1e-6;
  Task task = test::MakeTask({MakeTable("a", 1000, 1000, 1.0), MakeTable("s", 10, 8)}, 4, kGiB);
  task.topology.devices_per_host = 2;
  task.tables[1].allowed_sharding_types = {ShardingType::kDataParallel,
                                           ShardingType::kTableRowWise};
  std::vector<TableSharding> tables = {
      neuroshard::TableWiseLayout(task.tables[0], 0),
      neuroshard::DataParallelLayout(task.tables[1], task.topology)};
  neuroshard::LayoutCoster coster(task, model);
  PlacementCost cost = coster.Cost(tables);
  // The move the plan cost alone would take: the busiest device (0) sheds the replica's share.
  std::vector<TableSharding> shifted = tables;
  shifted[1] = neuroshard::TableRowWiseLayout(task.tables[1], task.topology, 1);
  const PlacementCost shifted_cost = coster.Cost(shifted);
  ASSERT_LT(shifted_cost.cost_ms, cost.cost_ms);
  ASSERT_GT(shifted_cost.total_ms[2], cost.total_ms[2] + 1.0);

  neuroshard::TypeStart start;
  start.movable = {false, true};
  start.layout.resize(2);
  start.forced = {false, false};
  start.gain = {0.0, 0.0};
  const StopSignal never;
  const neuroshard::RefineStats stats =
      neuroshard::RefineTypes(task, model, start, never, tables, cost);
  EXPECT_GE(stats.moves_tried, 1);
  EXPECT_EQ(stats.moves_kept, 0);
  EXPECT_EQ(tables[1].sharding_type, ShardingType::kDataParallel);
}

}  // namespace
}  // namespace shardplan
