#include "planner/algorithms/flexshard/flexshard_planner.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/plan_memory.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"
#include "tests/unit/support/test_files.h"
#include "wire/json_io.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kRowBytes = 256 * 4;

// The notes' worked case as the example task file gives it (to the server as to this test):
// E = 10M rows of dim 256 fp32, L = 500 SEQUENCE, Zipf(1); 4 hosts x 8 devices of 40 GiB; the
// global batch of 4096 per device; training; memory-neutral.
Task WorkedCase() {
  const std::string json = testing_files::ReadFile(
      absl::StrCat(SHARDPLAN_SOURCE_DIR, "/examples/task_flexshard_worked_case.json"));
  absl::StatusOr<Task> task = wire::ParseTaskJson(json);
  EXPECT_TRUE(task.ok()) << task.status();
  return task.ok() ? *task : Task();
}

absl::StatusOr<Plan> Planned(const Task& task, std::map<std::string, std::string> params = {}) {
  static const FlexShardPlanner* const kPlanner = new FlexShardPlanner();
  return test::RunPlanner(*kPlanner, task, params);
}

// The shards of `sharding` with rows [offset, offset + count), by device.
std::vector<int32_t> DevicesHolding(const TableSharding& sharding, int64_t offset, int64_t count) {
  std::vector<int32_t> devices;
  for (const Shard& shard : sharding.shards) {
    if (shard.row_offset == offset && shard.row_count == count) devices.push_back(shard.device);
  }
  return devices;
}

TEST(FlexShardPlannerTest, PlansTheWorkedCaseToTheRow) {
  const Task task = WorkedCase();
  ASSERT_TRUE(ValidateTask(task).ok()) << ValidateTask(task);
  absl::StatusOr<Plan> plan = Planned(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tables.size(), 1u);
  const TableSharding& history = plan->tables[0];
  EXPECT_EQ(history.table, "history");
  EXPECT_EQ(history.sharding_type, ShardingType::kRowWise);
  EXPECT_EQ(history.row_order, RowOrder::kFrequencyRank);
  EXPECT_EQ(history.rank_bands, (std::vector<int64_t>{20'551, 1'643'274}));  // the tiers
  EXPECT_TRUE(history.routes.empty());
  for (const Shard& shard : history.shards) {
    EXPECT_EQ(shard.column_offset, 0);
    EXPECT_EQ(shard.column_count, 256);
  }

  // DP: ranks [0, 20551) on all 32 devices.
  std::vector<int32_t> all(32);
  for (int d = 0; d < 32; ++d) all[d] = d;
  EXPECT_EQ(DevicesHolding(history, 0, 20'551), all);
  // Flex: ranks [20551, 1643274) in 8 slices of ceil(1622723 / 8) = 202841 rows (the last
  // 202836), slice w on local rank w of every host.
  int64_t offset = 20'551;
  for (int w = 0; w < 8; ++w) {
    const int64_t rows = w < 7 ? 202'841 : 202'836;
    EXPECT_EQ(DevicesHolding(history, offset, rows),
              (std::vector<int32_t>{w, 8 + w, 16 + w, 24 + w}))
        << "slice " << w;
    offset += rows;
  }
  EXPECT_EQ(offset, 1'643'274);
  // RW: the other 8,356,726 ranks in 32 blocks of 261148 (the last 261138), block d on device d.
  for (int d = 0; d < 32; ++d) {
    const int64_t rows = d < 31 ? 261'148 : 261'138;
    EXPECT_EQ(DevicesHolding(history, offset, rows), std::vector<int32_t>{d}) << "block " << d;
    offset += rows;
  }
  EXPECT_EQ(offset, 10'000'000);
  EXPECT_EQ(history.shards.size(), 32u + 8 * 4 + 32);

  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(task, *plan);
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ(memory->unique_bytes, int64_t{10'000'000} * kRowBytes);
  EXPECT_EQ(memory->bytes, memory->unique_bytes + (31 * int64_t{20'551} + 3 * int64_t{1'622'723}) *
                                                      kRowBytes);
}

TEST(FlexShardPlannerTest, EveryDeviceReadsTheFlexTierOnItsOwnHost) {
  const Task task = WorkedCase();
  absl::StatusOr<Plan> plan = Planned(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const TableLayout layout = LayoutOf(task.tables[0], plan->tables[0]);
  ASSERT_EQ(layout.groups.size(), 1u + 8 + 32);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, task.topology);
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    if (layout.groups[g].replicas() != 4) continue;  // a Flex slice
    for (int32_t requester = 0; requester < 32; ++requester) {
      const int32_t device = plan->tables[0].shards[serving[g][requester]].device;
      EXPECT_EQ(task.topology.host_of(device), task.topology.host_of(requester))
          << "group " << g << ", requester " << requester;
    }
  }
}

TEST(FlexShardPlannerTest, ReportsTheTiersTheLedgerAndTheBreakpoints) {
  absl::StatusOr<Plan> plan = Planned(WorkedCase());
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::map<std::string, std::string>& report = plan->parameters;
  EXPECT_EQ(report.at("tier.dp.rows"), "20551");
  EXPECT_EQ(report.at("tier.flex.rows"), "1622723");
  EXPECT_EQ(report.at("tier.rw.rows"), "8356726");
  EXPECT_EQ(report.at("table.history.dp.rows"), "20551");
  EXPECT_EQ(report.at("table.history.flex.rows"), "1622723");
  // Coverage: 62.9% DP, 89.2% DP + Flex (the notes' figures).
  const double dp = std::stod(report.at("tier.dp.coverage"));
  const double flex = std::stod(report.at("tier.flex.coverage"));
  EXPECT_NEAR(dp, 0.629, 5e-4);
  EXPECT_NEAR(dp + flex, 0.892, 5e-4);
  EXPECT_NEAR(dp + flex + std::stod(report.at("tier.rw.coverage")), 1.0, 1e-5);
  EXPECT_EQ(report.at("table.history.dp.coverage"), report.at("tier.dp.coverage"));
  // Memory-neutral: the replicated rows cost no more than the RW plan's memory they free.
  EXPECT_EQ(report.at("memory.budget_bytes"), "0");
  EXPECT_EQ(report.at("memory.multiplier"), "6");
  EXPECT_EQ(report.at("memory.within_budget"), "true");
  EXPECT_LE(std::stod(report.at("memory.marginal_bytes")), 0.0);
  EXPECT_GT(std::stod(report.at("memory.row_wise_bytes")), 0.0);
  for (const char* key : {"memory.replicated_static_bytes", "memory.row_wise_static_saved_bytes",
                          "memory.dynamic_saved_bytes", "comm.all_to_all_reduction",
                          "comm.non_overlappable_ms", "breakpoint.dp_comm",
                          "breakpoint.flex_comm"}) {
    EXPECT_TRUE(report.contains(key)) << key;
  }
  // p_mem = (6 - 1/32) / 4096.
  EXPECT_EQ(report.at("breakpoint.memory"), "0.00145721");
  // Every key is dotted: none can be mistaken for a parameter (plan.h).
  for (const auto& [key, value] : report) EXPECT_NE(key.find('.'), std::string::npos) << key;
}

TEST(FlexShardPlannerTest, TwoTiersAreDpToThePointBAndRw) {
  const Task task = WorkedCase();
  absl::StatusOr<Plan> plan = Planned(task, {{"tiers", "2"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const TableSharding& history = plan->tables[0];
  EXPECT_EQ(DevicesHolding(history, 0, 268'796).size(), 32u);
  EXPECT_EQ(history.shards.size(), 32u + 32);  // DP everywhere, then one RW block per device
  EXPECT_EQ(plan->parameters.at("tier.dp.rows"), "268796");
  EXPECT_EQ(plan->parameters.at("tier.flex.rows"), "0");
  EXPECT_NEAR(std::stod(plan->parameters.at("tier.dp.coverage")), 0.783, 5e-4);
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
}

TEST(FlexShardPlannerTest, RoundsTiersToTheDevicesWhenAsked) {
  const Task task = WorkedCase();
  absl::StatusOr<Plan> plan = Planned(task, {{"round_to_devices", "true"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  // 20551 -> 20544 = 642 x 32 DP rows; 1622723 -> 1622720 = 50710 x 32 Flex rows after them.
  EXPECT_EQ(plan->parameters.at("tier.dp.rows"), "20544");
  EXPECT_EQ(plan->parameters.at("tier.flex.rows"), "1622720");
  EXPECT_EQ(plan->parameters.at("tier.rw.rows"), "8356736");
  EXPECT_EQ(DevicesHolding(plan->tables[0], 0, 20'544).size(), 32u);
  EXPECT_EQ(DevicesHolding(plan->tables[0], 20'544, 202'840).size(), 4u);  // 1622720 / 8
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
}

TEST(FlexShardPlannerTest, CutsFlexAtItsCommunicationBreakpointWhenAsked) {
  // docs/flexshard.md: with the task's all-reduce at 3x the NIC the cut never binds; with a ring
  // all-reduce over it (half the NIC) the Flex tier ends at 879,022 rows.
  Task task = WorkedCase();
  absl::StatusOr<Plan> plan = Planned(task, {{"cut_flex_at_comm_breakpoint", "true"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->parameters.at("tier.flex.rows"), "1622723");
  task.topology.all_reduce_bandwidth_gibps = task.topology.inter_host_bandwidth_gibps / 2;
  plan = Planned(task, {{"cut_flex_at_comm_breakpoint", "true"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->parameters.at("tier.dp.rows"), "20551");
  EXPECT_EQ(plan->parameters.at("tier.flex.rows"), "879022");
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  plan = Planned(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->parameters.at("tier.flex.rows"), "1622723");
}

// Two tables of different heat, a second profile kind (top-K) and one host: tiers split by
// merged probability, every plan valid and the same each time.
TEST(FlexShardPlannerTest, PlansSeveralTablesDeterministically) {
  Table hot = test::MakeTable("hot", 200'000, 64, 20);
  hot.access_profile.zipf = ZipfAccessProfile{.exponent = 1.2};
  Table warm = test::MakeTable("warm", 50'000, 32, 4);
  warm.access_profile.top_k = TopKAccessProfile{.top_counts = {900, 500, 300, 100, 50},
                                                .tail_count = 1000,
                                                .tail_rows = 0};
  Table cold = test::MakeTable("cold", 10'000'000, 16, 1);  // no profile: uniform, too cold
  for (int per_host : {8, 4}) {
    Task task = test::MakeTask({cold, hot, warm}, 8, test::kGiB);
    task.topology.devices_per_host = per_host;
    task.batch_size = 8 * 512;
    absl::StatusOr<Plan> first = Planned(task);
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_TRUE(ValidatePlan(task, *first).ok()) << ValidatePlan(task, *first);
    EXPECT_GT(std::stoll(first->parameters.at("table.hot.dp.rows")), 0);
    EXPECT_EQ(first->parameters.at("table.cold.dp.rows"), "0");
    EXPECT_EQ(first->parameters.at("table.cold.flex.rows"), "0");
    // Nothing of "cold" (plan order: cold, hot, warm) replicated: TorchRec's RW in id order.
    EXPECT_EQ(first->tables[0].row_order, RowOrder::kNatural);
    EXPECT_EQ(first->tables[1].row_order, RowOrder::kFrequencyRank);
    absl::StatusOr<Plan> second = Planned(task);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(first->parameters, second->parameters);
    ASSERT_EQ(first->tables.size(), second->tables.size());
    for (size_t k = 0; k < first->tables.size(); ++k) {
      ASSERT_EQ(first->tables[k].shards.size(), second->tables[k].shards.size());
      for (size_t s = 0; s < first->tables[k].shards.size(); ++s) {
        const Shard& a = first->tables[k].shards[s];
        const Shard& b = second->tables[k].shards[s];
        EXPECT_TRUE(a.device == b.device && a.row_offset == b.row_offset &&
                    a.row_count == b.row_count);
      }
    }
  }
}

TEST(FlexShardPlannerTest, InferencePlansValidly) {
  Task task = WorkedCase();
  task.objective = Objective::kInference;
  absl::StatusOr<Plan> plan = Planned(task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->parameters.at("memory.multiplier"), "1");
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
}

TEST(FlexShardPlannerTest, RefusesWhatItCannotPlanNamingTheField) {
  Task short_host = WorkedCase();
  short_host.topology.memory_bytes.resize(30);
  EXPECT_STATUS(Planned(short_host), absl::StatusCode::kInvalidArgument,
                "topology.devices_per_host: FlexShard's Flex tier needs every host full");

  Task pinned = WorkedCase();
  pinned.tables[0].pinned_device = 3;
  EXPECT_STATUS(Planned(pinned), absl::StatusCode::kFailedPrecondition,
                "tables[0].pinned_device: task is infeasible for flexshard: table \"history\" "
                "is pinned to device 3");

  Task table_wise = WorkedCase();
  table_wise.tables[0].allowed_sharding_types = {ShardingType::kTableWise};
  EXPECT_STATUS(Planned(table_wise), absl::StatusCode::kFailedPrecondition,
                "tables[0].allowed_sharding_types: task is infeasible for flexshard: table "
                "\"history\" does not allow ROW_WISE");

  Task colocated = WorkedCase();
  colocated.tables.push_back(test::MakeTable("other", 1000, 16));
  colocated.colocate = {{"history", "other"}};
  EXPECT_STATUS(Planned(colocated), absl::StatusCode::kFailedPrecondition, "colocate[0]: ");

  Task bad_profile = WorkedCase();
  bad_profile.tables[0].access_profile.zipf->exponent = 5.0;
  EXPECT_STATUS(Planned(bad_profile), absl::StatusCode::kInvalidArgument,
                "tables[0].access_profile.zipf.exponent");

  EXPECT_STATUS(Planned(WorkedCase(), {{"tiers", "4"}}), absl::StatusCode::kInvalidArgument,
                "parameters.tiers");
}

TEST(FlexShardPlannerTest, ATierThatDoesNotFitNamesTheTableTheTierAndTheBytes) {
  // 300 MiB devices: the DP rows (20 MiB) and a Flex slice (198 MiB) fit, the RW block
  // (255 MiB) does not.
  Task task = WorkedCase();
  task.topology.memory_bytes.assign(32, int64_t{300} << 20);
  EXPECT_STATUS(Planned(task), absl::StatusCode::kFailedPrecondition,
                "task is infeasible for flexshard: table \"history\"'s RW tier (ranks [1643274, "
                "1904422)) needs 0.25 GiB (267415552 bytes) on device 0, which has 0.08 GiB "
                "(85819392 bytes) free of 0.29 GiB");
}

TEST(FlexShardPlannerTest, AStopSignalEndsThePlanning) {
  StopSignal stop;
  stop.RequestCancel();
  const FlexShardPlanner planner;
  EXPECT_EQ(test::RunPlanner(planner, WorkedCase(), {}, 0, &stop).status().code(),
            absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace shardplan
