// ValidateTask and ValidatePlan: one test per rule, with the exact field path in the message.

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr auto kExhausted = absl::StatusCode::kResourceExhausted;

// Four tables on four 4 GiB devices; valid.
Task ValidTask() {
  return test::MakeTask({MakeTable("t0", 1000, 64, 2.0), MakeTable("t1", 500, 32),
                         MakeTable("t2", 100, 16), MakeTable("t3", 10, 4)},
                        4, 4 * kGiB);
}

// ---------------------------------------------------------------------------------------------
// ValidateTask

TEST(ValidateTaskTest, AcceptsAValidTask) {
  Task task = ValidTask();
  task.tables[0].access_bins.assign(kNumAccessBins, 1.0 / kNumAccessBins);
  task.tables[1].pinned_device = 3;
  task.tables[2].allowed_sharding_types = {ShardingType::kTableWise};
  task.colocate = {{"t0", "t2"}, {"t1"}};
  EXPECT_TRUE(ValidateTask(task).ok()) << ValidateTask(task);
}

TEST(ValidateTaskTest, TableCountLimit) {
  Task task = ValidTask();
  task.tables.resize(200000);
  EXPECT_STATUS(ValidateTask(task), kExhausted, "tables: 200000 tables exceed the limit of 100000");
  TaskLimits limits;
  limits.max_tables = 3;
  EXPECT_STATUS(ValidateTask(ValidTask(), limits), kExhausted,
                "tables: 4 tables exceed the limit of 3");
}

TEST(ValidateTaskTest, DeviceCountLimit) {
  Task task = ValidTask();
  task.topology.memory_bytes.assign(5000, kGiB);
  EXPECT_STATUS(ValidateTask(task), kExhausted,
                "topology.num_devices: 5000 devices exceed the limit of 4096");
}

TEST(ValidateTaskTest, ColocationGroupLimit) {
  Task task = ValidTask();
  task.colocate = {{"t0"}, {"t1"}};
  TaskLimits limits;
  limits.max_colocation_groups = 1;
  EXPECT_STATUS(ValidateTask(task, limits), kExhausted, "colocate: 2 groups exceed the limit of 1");
}

TEST(ValidateTaskTest, PerTableLimits) {
  TaskLimits limits;
  limits.max_rows = 999;
  EXPECT_STATUS(ValidateTask(ValidTask(), limits), kExhausted,
                "tables[0].rows: 1000 rows exceed the limit of 999");
  limits = {};
  limits.max_dim = 32;
  EXPECT_STATUS(ValidateTask(ValidTask(), limits), kExhausted,
                "tables[0].dim: 64 exceeds the limit of 32");
  limits = {};
  limits.max_pooling_factor = 1.5;
  EXPECT_STATUS(ValidateTask(ValidTask(), limits), kExhausted,
                "tables[0].pooling_factor: 2 exceeds the limit of 1.5");
}

TEST(ValidateTaskTest, BatchSize) {
  Task task = ValidTask();
  task.batch_size = 0;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "batch_size: must be at least 1, got 0");
  task.batch_size = int64_t{1} << 33;
  EXPECT_STATUS(ValidateTask(task), kExhausted,
                "batch_size: 8589934592 exceeds the limit of 4294967296");
}

TEST(ValidateTaskTest, MaxPlanningTime) {
  Task task = ValidTask();
  task.max_planning_time_ms = -1;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "max_planning_time_ms: must be in [0, 86400000]");
  // 1e13 ms overflowed the steady clock's deadline and stopped planning at once.
  task.max_planning_time_ms = 10000000000000;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "max_planning_time_ms: must be in [0, 86400000] (0: no limit; at most a day), got "
                "10000000000000");
  task.max_planning_time_ms = kMaxTaskPlanningTimeMs;
  EXPECT_TRUE(ValidateTask(task).ok());
}

TEST(ValidateTaskTest, MemoryMultipliers) {
  Task task = ValidTask();
  task.memory.optimizer_state_multiplier = std::nan("");
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "memory.optimizer_state_multiplier: must be finite, got nan");
  task.memory.optimizer_state_multiplier = 0;
  task.memory.io_buffer_multiplier = -0.5;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "memory.io_buffer_multiplier: must be >= 0, got -0.5");
  task.memory.io_buffer_multiplier = 0;
  task.memory.storage_reservation = 1.0;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "memory.storage_reservation: must be a fraction in [0, 1) (TorchRec's default: "
                "0.15), got 1");
}

TEST(ValidateTaskTest, Topology) {
  Task task = ValidTask();
  task.topology.memory_bytes.clear();
  EXPECT_STATUS(ValidateTask(task), kInvalid, "topology.num_devices: must be at least 1, got 0");
  task = ValidTask();
  task.topology.memory_bytes[2] = 0;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "topology.memory_bytes[2]: must be positive, got 0");
  task = ValidTask();
  task.topology.devices_per_host = -2;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "topology.devices_per_host: must be >= 0, got -2");
  task = ValidTask();
  task.topology.intra_host_bandwidth_gibps = std::numeric_limits<double>::infinity();
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "topology.intra_host_bandwidth_gibps: must be a positive finite number");
  task = ValidTask();
  task.topology.inter_host_bandwidth_gibps = 0;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "topology.inter_host_bandwidth_gibps: must be a positive finite number, got 0");
}

TEST(ValidateTaskTest, TableName) {
  Task task = ValidTask();
  task.tables[1].name = "";
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[1].name: must not be empty");
  task.tables[1].name = std::string(1025, 'n');
  EXPECT_STATUS(ValidateTask(task), kExhausted,
                "tables[1].name: 1025 bytes exceed the limit of 1024");
  task.tables[1].name = std::string(1024, 'n');
  EXPECT_TRUE(ValidateTask(task).ok());
}

TEST(ValidateTaskTest, DuplicateNames) {
  Task task = ValidTask();
  task.tables.push_back(MakeTable("t9", 4, 4));
  task.tables.push_back(MakeTable("t2", 4, 4));
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[5].name: duplicate of tables[2].name \"t2\"");
}

TEST(ValidateTaskTest, Rows) {
  Task task = ValidTask();
  task.tables[3].rows = 0;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[3].rows: must be at least 1, got 0");
}

TEST(ValidateTaskTest, Dim) {
  Task task = ValidTask();
  task.tables[3].dim = 6;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[3].dim: must be a multiple of 4, got 6");
  task.tables[3].dim = 0;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[3].dim: must be positive, got 0");
  task.tables[3].dim = -8;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[3].dim: must be positive, got -8");
}

TEST(ValidateTaskTest, PoolingFactor) {
  Task task = ValidTask();
  task.tables[1].pooling_factor = std::nan("");
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[1].pooling_factor: must be finite, got nan");
  task.tables[1].pooling_factor = std::numeric_limits<double>::infinity();
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[1].pooling_factor: must be finite, got inf");
  task.tables[1].pooling_factor = -1;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[1].pooling_factor: must be >= 0, got -1");
  task.tables[1].pooling_factor = 0;
  EXPECT_TRUE(ValidateTask(task).ok());
}

TEST(ValidateTaskTest, AccessBins) {
  Task task = ValidTask();
  task.tables[0].access_bins = {0.5, 0.5};
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[0].access_bins: must have 0 or 17 entries, got 2");
  task.tables[0].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[0].access_bins[4] = 1.5;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[0].access_bins[4]: must be in [0, 1], got 1.5");
  task.tables[0].access_bins[4] = std::nan("");
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[0].access_bins[4]: must be in [0, 1]");
  task.tables[0].access_bins[4] = -0.1;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[0].access_bins[4]: must be in [0, 1]");
}

TEST(ValidateTaskTest, AccessBinsSumToOne) {
  Task task = ValidTask();
  // Every bin 1: the histogram sums to 17 (it changed a cost from 55.65 to 263.6 ms).
  task.tables[0].access_bins.assign(kNumAccessBins, 1.0);
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[0].access_bins: the bins are shares of the table's accessed rows and must "
                "sum to 1 (within 0.001), got 17");
  task.tables[0].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[0].access_bins[0] = 0.5;
  task.tables[0].access_bins[3] = 0.4996;  // rounding: within the tolerance
  EXPECT_TRUE(ValidateTask(task).ok());
  task.tables[0].access_bins[3] = 0.49;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[0].access_bins: the bins are shares");
  // All 0: a table no batch reads, which only a pooling factor of 0 describes.
  task.tables[0].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[0].pooling_factor = 2.0;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[0].access_bins: the bins are shares of the table's accessed rows and must "
                "sum to 1 (within 0.001), got 0 (all 0 only for a pooling factor of 0)");
  task.tables[0].pooling_factor = 0.0;
  EXPECT_TRUE(ValidateTask(task).ok());
}

TEST(ValidateTaskTest, EnumValues) {
  Task task = ValidTask();
  task.tables[2].element_type = static_cast<ElementType>(9);
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[2].element_type: invalid value 9");
  task = ValidTask();
  task.tables[2].allowed_sharding_types = {ShardingType::kTableWise, static_cast<ShardingType>(7)};
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[2].allowed_sharding_types[1]: invalid value 7");
}

TEST(ValidateTaskTest, PinnedDeviceInRange) {
  Task task = ValidTask();
  task.tables[1].pinned_device = 4;
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "tables[1].pinned_device: device 4 does not exist (topology.num_devices is 4)");
  task.tables[1].pinned_device = -1;
  EXPECT_STATUS(ValidateTask(task), kInvalid, "tables[1].pinned_device: device -1 does not exist");
}

TEST(ValidateTaskTest, ColocationUnknownTable) {
  Task task = ValidTask();
  task.colocate = {{"t0", "t1"}, {"t2", "x"}};
  EXPECT_STATUS(ValidateTask(task), kInvalid, "colocate[1].tables[1]: unknown table \"x\"");
  task.colocate = {{"t0"}, {"x"}};
  EXPECT_STATUS(ValidateTask(task), kInvalid, "colocate[1].tables[0]: unknown table \"x\"");
}

TEST(ValidateTaskTest, ColocationEmptyGroup) {
  Task task = ValidTask();
  task.colocate = {{"t0"}, {}};
  EXPECT_STATUS(ValidateTask(task), kInvalid, "colocate[1].tables: must name a table");
}

TEST(ValidateTaskTest, ColocationTableAtMostOnce) {
  Task task = ValidTask();
  task.colocate = {{"t0", "t1"}, {"t2", "t1"}};
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "colocate[1].tables[1]: table \"t1\" is already in colocate[0]");
  task.colocate = {{"t3", "t3"}};
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "colocate[0].tables[1]: table \"t3\" is already in colocate[0]");
}

TEST(ValidateTaskTest, ColocationConflictingPins) {
  Task task = ValidTask();
  task.tables[0].pinned_device = 0;
  task.tables[2].pinned_device = 2;
  task.colocate = {{"t1"}, {"t0", "t3", "t2"}};
  EXPECT_STATUS(ValidateTask(task), kInvalid,
                "colocate[1]: tables \"t0\" and \"t2\" are pinned to different devices (0 and 2)");
  task.tables[2].pinned_device = 0;  // agreeing pins are fine
  EXPECT_TRUE(ValidateTask(task).ok()) << ValidateTask(task);
}

// ---------------------------------------------------------------------------------------------
// ValidatePlan

Plan ValidPlan(const Task& task) { return TableWisePlan(task, {0, 1, 2, 3}); }

TableSharding ValidationSharding(std::string table, ShardingType type, std::vector<Shard> shards) {
  TableSharding sharding;
  sharding.table = std::move(table);
  sharding.sharding_type = type;
  sharding.shards = std::move(shards);
  return sharding;
}

TEST(ValidatePlanTest, AcceptsTableWise) {
  const Task task = ValidTask();
  EXPECT_TRUE(ValidatePlan(task, ValidPlan(task)).ok());
  EXPECT_TRUE(ValidatePlan(task, TableWisePlan(task, {0, 0, 0, 0})).ok());
}

TEST(ValidatePlanTest, AcceptsPlansInAnyTableOrder) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  std::swap(plan.tables[0], plan.tables[3]);
  EXPECT_TRUE(ValidatePlan(task, plan).ok());
}

TEST(ValidatePlanTest, AcceptsUnevenColumnWise) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  // t0 is 1000 x 64: 32 + 16 + 16 columns, listed out of order, two on one device.
  plan.tables[0] = ValidationSharding(
      "t0", ShardingType::kColumnWise,
      {Shard{1, 0, 1000, 48, 16}, Shard{0, 0, 1000, 0, 32}, Shard{1, 0, 1000, 32, 16}});
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
}

TEST(ValidatePlanTest, AcceptsRowWiseAndDataParallel) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[1] = ValidationSharding("t1", ShardingType::kRowWise,
                                      {Shard{0, 0, 250, 0, 32}, Shard{1, 250, 250, 0, 32}});
  plan.tables[2] = ValidationSharding("t2", ShardingType::kDataParallel,
                                      {Shard{0, 0, 100, 0, 16}, Shard{3, 0, 100, 0, 16},
                                       Shard{1, 0, 100, 0, 16}, Shard{2, 0, 100, 0, 16}});
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
}

TEST(ValidatePlanTest, TableRowWiseStaysOnOneHost) {
  Task task = ValidTask();
  task.topology.devices_per_host = 2;  // hosts {0, 1} and {2, 3}
  Plan plan = ValidPlan(task);
  plan.tables[1] = ValidationSharding("t1", ShardingType::kTableRowWise,
                                      {Shard{2, 0, 300, 0, 32}, Shard{3, 300, 200, 0, 32}});
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  plan.tables[1].shards[1].device = 1;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[1].device: a TABLE_ROW_WISE table stays on one host: device 1 "
                "is on host 0, shard 0's device 2 on host 1 (2 devices per host)");
  plan.tables[1].shards[1] = Shard{3, 250, 250, 0, 32};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[1]: rows [250, 300) of table \"t1\" are covered by another "
                "shard too");
}

TEST(ValidatePlanTest, UnknownTable) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[2].table = "nope";
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[2].table: unknown table \"nope\"");
}

TEST(ValidatePlanTest, DuplicateTable) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables.push_back(plan.tables[1]);
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[4].table: duplicate of tables[1].table \"t1\"");
}

TEST(ValidatePlanTest, MissingTable) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables.erase(plan.tables.begin() + 2);
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables: table \"t2\" is missing from the plan");
}

TEST(ValidatePlanTest, InvalidShardingType) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0].sharding_type = static_cast<ShardingType>(11);
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[0].sharding_type: invalid value 11");
}

TEST(ValidatePlanTest, DisallowedShardingType) {
  Task task = ValidTask();
  task.tables[1].allowed_sharding_types = {ShardingType::kColumnWise, ShardingType::kRowWise};
  EXPECT_STATUS(ValidatePlan(task, ValidPlan(task)), kInvalid,
                "tables[1].sharding_type: TABLE_WISE is not allowed for table \"t1\" "
                "(allowed: COLUMN_WISE, ROW_WISE)");
}

TEST(ValidatePlanTest, NoShards) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[3].shards.clear();
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[3].shards: table \"t3\" has no shards");
}

TEST(ValidatePlanTest, TableWiseHasOneShard) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[1].shards.push_back(plan.tables[1].shards[0]);
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards: a TABLE_WISE table has exactly one shard, table \"t1\" has 2");
}

TEST(ValidatePlanTest, TableWiseShardIsTheWholeTable) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0].shards[0].column_count = 32;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards[0]: a TABLE_WISE shard spans all columns [0, 64) of table "
                "\"t0\", got columns [0, 32)");
  plan = ValidPlan(task);
  plan.tables[0].shards[0].row_count = 999;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards[0]: a TABLE_WISE shard spans all rows [0, 1000) of table "
                "\"t0\", got rows [0, 999)");
}

TEST(ValidatePlanTest, DeviceOutOfRange) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[2].shards[0].device = 4;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].shards[0].device: device 4 does not exist (topology.num_devices is 4)");
  plan.tables[2].shards[0].device = -1;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].shards[0].device: device -1 does not exist");
}

TEST(ValidatePlanTest, ShardOutOfBounds) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[1].shards[0].row_offset = 10;  // [10, 510) of 500 rows
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[0]: rows [10, +500) are not a non-empty range within the 500 "
                "rows of table \"t1\"");
  plan = ValidPlan(task);
  plan.tables[1].shards[0].row_count = 0;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[1].shards[0]: rows [0, +0)");
  plan = ValidPlan(task);
  plan.tables[1].shards[0].row_offset = std::numeric_limits<int64_t>::max();
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[1].shards[0]: rows");
  plan = ValidPlan(task);
  plan.tables[1].shards[0].column_offset = -4;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[0]: columns [-4, +32) are not a non-empty range within the 32 "
                "columns of table \"t1\"");
  plan = ValidPlan(task);
  plan.tables[1].shards[0].column_count = 36;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "tables[1].shards[0]: columns [0, +36)");
}

TEST(ValidatePlanTest, ColumnWiseShardsSpanAllRows) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{0, 0, 1000, 0, 32}, Shard{1, 0, 500, 32, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards[1]: a COLUMN_WISE shard spans all rows [0, 1000) of table "
                "\"t0\", got rows [0, 500)");
}

TEST(ValidatePlanTest, ColumnWiseGap) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{0, 0, 1000, 0, 16}, Shard{1, 0, 1000, 32, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards: columns [16, 32) of table \"t0\" are not covered");
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{0, 0, 1000, 0, 16}, Shard{1, 0, 1000, 16, 16}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards: columns [32, 64) of table \"t0\" are not covered");
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise, {Shard{0, 0, 1000, 8, 56}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards: columns [0, 8) of table \"t0\" are not covered");
}

TEST(ValidatePlanTest, ColumnWiseOverlap) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{0, 0, 1000, 0, 40}, Shard{1, 0, 1000, 32, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards[1]: columns [32, 40) of table \"t0\" are covered by another "
                "shard too");
  // The same range twice (on different devices) is an overlap, not a replica.
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{0, 0, 1000, 0, 64}, Shard{1, 0, 1000, 0, 64}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "are covered by another shard too");
}

TEST(ValidatePlanTest, RowWiseTiling) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[1] = ValidationSharding("t1", ShardingType::kRowWise,
                                      {Shard{0, 0, 300, 0, 32}, Shard{1, 250, 250, 0, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[1]: rows [250, 300) of table \"t1\" are covered by another "
                "shard too");
  plan.tables[1] = ValidationSharding("t1", ShardingType::kRowWise,
                                      {Shard{0, 0, 200, 0, 32}, Shard{1, 250, 250, 0, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards: rows [200, 250) of table \"t1\" are not covered");
  plan.tables[1] = ValidationSharding("t1", ShardingType::kRowWise,
                                      {Shard{0, 0, 250, 0, 16}, Shard{1, 250, 250, 0, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[0]: a ROW_WISE shard spans all columns [0, 32)");
}

TEST(ValidatePlanTest, DataParallelReplicas) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[2] = ValidationSharding("t2", ShardingType::kDataParallel,
                                      {Shard{1, 0, 100, 0, 16}, Shard{1, 0, 100, 0, 16}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].shards[1].device: table \"t2\" already has a replica on device 1");
  plan.tables[2] = ValidationSharding("t2", ShardingType::kDataParallel, {Shard{1, 0, 50, 0, 16}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].shards[0]: a DATA_PARALLEL shard spans all rows");
  // A DATA_PARALLEL table on some devices only: the others' lookups are routed to a replica.
  plan.tables[2] = ValidationSharding("t2", ShardingType::kDataParallel,
                                      {Shard{0, 0, 100, 0, 16}, Shard{3, 0, 100, 0, 16}});
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
}

// The hybrid: the hottest 1% of a table's rows (rank order) on every device, the rest
// row-wise. Before row layouts: "rows [0, 10) ... covered by another shard too".
TEST(ValidatePlanTest, AcceptsReplicatedHotRowsAndTheRestRowWise) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  std::vector<Shard> shards;
  for (int32_t d = 0; d < 4; ++d) shards.push_back(Shard{d, 0, 10, 0, 64});
  for (int32_t d = 0; d < 4; ++d) shards.push_back(Shard{d, 10 + 990 / 4 * d, d < 3 ? 247 : 249, 0, 64});
  plan.tables[0] = ValidationSharding("t0", ShardingType::kRowWise, shards);
  plan.tables[0].row_order = RowOrder::kFrequencyRank;
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  // Routes choose among the hot group's replicas.
  plan.tables[0].routes = {RowRoute{.requester = 1, .shard = 0}};
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  // Replicas on distinct devices only.
  plan.tables[0].shards[1].device = 0;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].shards[1].device: table \"t0\" already has a replica of rows [0, 10) "
                "on device 0");
}

TEST(ValidatePlanTest, ReplicasOnlyWhereTheTypeHasThem) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[1] = ValidationSharding(
      "t1", ShardingType::kTableRowWise,
      {Shard{0, 0, 250, 0, 32}, Shard{1, 0, 250, 0, 32}, Shard{2, 250, 250, 0, 32}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[1]: rows [0, 250) of table \"t1\" are covered by another shard "
                "too (a TABLE_ROW_WISE table does not replicate; ROW_WISE and DATA_PARALLEL do)");
  plan.tables[1] = ValidationSharding(
      "t1", ShardingType::kColumnWise,
      {Shard{0, 0, 500, 0, 16}, Shard{1, 0, 500, 0, 16}, Shard{2, 0, 500, 16, 16}});
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].shards[1]: columns [0, 16) of table \"t1\" are covered by another "
                "shard too (a COLUMN_WISE table does not replicate");
}

TEST(ValidatePlanTest, RoutesNameARequesterAndAReplica) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[2] = ValidationSharding("t2", ShardingType::kDataParallel,
                                      {Shard{0, 0, 100, 0, 16}, Shard{3, 0, 100, 0, 16}});
  plan.tables[2].routes = {RowRoute{.requester = 4, .shard = 0}};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].routes[0].requester: device 4 does not exist");
  plan.tables[2].routes = {RowRoute{.requester = 1, .shard = 2}};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].routes[0].shard: table \"t2\" has no shard 2 (it has 2)");
  plan.tables[2].routes = {RowRoute{.requester = 1, .shard = 1}, RowRoute{.requester = 1, .shard = 0}};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[2].routes[1]: device 1 is routed twice for rows [0, 100) of table \"t2\"");
  plan.tables[2].routes = {RowRoute{.requester = 1, .shard = 1}};
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  // A group with one replica leaves nothing to choose.
  plan.tables[1] = ValidationSharding("t1", ShardingType::kRowWise,
                                      {Shard{0, 0, 250, 0, 32}, Shard{1, 250, 250, 0, 32}});
  plan.tables[1].routes = {RowRoute{.requester = 2, .shard = 1}};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[1].routes[0].shard: shard 1 of table \"t1\" holds rows [250, 500) alone: "
                "a route chooses among a group's replicas");
}

TEST(ValidatePlanTest, FrequencyRankOrderOnlyForRowSplitTypes) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[3].row_order = RowOrder::kFrequencyRank;
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[3].row_order: FREQUENCY_RANK orders the rows of row-split tables "
                "(ROW_WISE, TABLE_ROW_WISE); every TABLE_WISE shard of table \"t3\" holds all "
                "rows");
}

TEST(ValidatePlanTest, RankBandsOnlyInRankOrderIncreasingWithinTheTable) {
  const Task task = ValidTask();
  Plan plan = ValidPlan(task);
  plan.tables[0].sharding_type = ShardingType::kRowWise;
  plan.tables[0].shards = {Shard{0, 0, 500, 0, 64}, Shard{1, 500, 500, 0, 64}};
  plan.tables[0].rank_bands = {10, 500};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].rank_bands: bands cut ranks, so only rows in FREQUENCY_RANK order; "
                "table \"t0\" is in NATURAL order");
  plan.tables[0].row_order = RowOrder::kFrequencyRank;
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  plan.tables[0].rank_bands = {10, 10};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].rank_bands[1]: boundaries must increase strictly within (0, rows) = "
                "(0, 1000), got 10 after 10");
  plan.tables[0].rank_bands = {1000};
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid,
                "tables[0].rank_bands[0]: boundaries must increase strictly within (0, rows) = "
                "(0, 1000), got 1000");
}

TEST(ValidatePlanTest, EveryReplicaCountsTowardsMemory) {
  Task task = ValidTask();
  task.topology.memory_bytes.assign(4, 1000 * 64 * 4 + 100);  // t0 once, and a little
  Plan plan = ValidPlan(task);
  plan.tables[1] = ValidationSharding("t1", ShardingType::kTableWise, {Shard{3, 0, 500, 0, 32}});
  plan.tables[2] = ValidationSharding("t2", ShardingType::kTableWise, {Shard{3, 0, 100, 0, 16}});
  plan.tables[0] = ValidationSharding("t0", ShardingType::kDataParallel,
                                      {Shard{0, 0, 1000, 0, 64}, Shard{1, 0, 1000, 0, 64}});
  EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  plan.tables[0].shards.push_back(Shard{3, 0, 1000, 0, 64});
  EXPECT_STATUS(ValidatePlan(task, plan), absl::StatusCode::kFailedPrecondition, "device 3: needs");
}

TEST(ValidatePlanTest, PinnedTableOnAnotherDevice) {
  Task task = ValidTask();
  task.tables[2].pinned_device = 0;
  EXPECT_STATUS(ValidatePlan(task, ValidPlan(task)), kInvalid,
                "tables[2].shards[0].device: table \"t2\" is pinned to device 0, got device 2");
  EXPECT_TRUE(ValidatePlan(task, TableWisePlan(task, {1, 1, 0, 1})).ok());
}

TEST(ValidatePlanTest, ColocationBroken) {
  Task task = ValidTask();
  task.colocate = {{"t3"}, {"t1", "t2"}};
  EXPECT_STATUS(
      ValidatePlan(task, ValidPlan(task)), kInvalid,
      "colocate[1]: table \"t2\" has a shard on device 2 but table \"t1\" is on device 1");
  EXPECT_TRUE(ValidatePlan(task, TableWisePlan(task, {0, 2, 2, 3})).ok());
}

TEST(ValidatePlanTest, ColocationCoversEveryShardOfAColumnWiseTable) {
  Task task = ValidTask();
  task.colocate = {{"t0", "t3"}};
  Plan plan = TableWisePlan(task, {1, 0, 0, 1});
  plan.tables[0] = ValidationSharding("t0", ShardingType::kColumnWise,
                                      {Shard{1, 0, 1000, 0, 32}, Shard{2, 0, 1000, 32, 32}});
  EXPECT_STATUS(
      ValidatePlan(task, plan), kInvalid,
      "colocate[0]: table \"t0\" has a shard on device 2 but table \"t0\" is on device 1");
}

TEST(ValidatePlanTest, MemoryOverCapacityIsFailedPrecondition) {
  // t_big is 5.25 GiB (fp32, dim 4: 16 bytes a row) on a 4 GiB device.
  Task task = test::MakeTask({MakeTable("small", 10, 4), MakeTable("big", 352321536, 4)},
                             {4 * kGiB, 4 * kGiB, 4 * kGiB});
  EXPECT_STATUS(ValidatePlan(task, TableWisePlan(task, {0, 2})),
                absl::StatusCode::kFailedPrecondition,
                "device 2: needs 5.25 GiB but has 4.00 GiB (5637144576 > 4294967296 bytes)");
}

TEST(ValidatePlanTest, MemoryIsSummedPerDeviceWithMultipliers) {
  // Two 1.5 GiB tables fit a 4 GiB device, not with Adam state (x3: 9 GiB).
  Task task = test::MakeTask({MakeTable("a", 100663296, 4), MakeTable("b", 100663296, 4)},
                             {4 * kGiB, 4 * kGiB});
  EXPECT_TRUE(ValidatePlan(task, TableWisePlan(task, {1, 1})).ok());
  task.memory.optimizer_state_multiplier = 2;
  EXPECT_STATUS(ValidatePlan(task, TableWisePlan(task, {1, 1})),
                absl::StatusCode::kFailedPrecondition, "device 1: needs 9.00 GiB but has 4.00 GiB");
  EXPECT_STATUS(ValidatePlan(task, TableWisePlan(task, {0, 1})),
                absl::StatusCode::kFailedPrecondition, "device 0: needs 4.50 GiB");
}

TEST(ValidatePlanTest, HeterogeneousCapacities) {
  Task task = test::MakeTask({MakeTable("a", 100663296, 4)}, {kGiB, 2 * kGiB});  // 1.5 GiB
  EXPECT_STATUS(ValidatePlan(task, TableWisePlan(task, {0})), absl::StatusCode::kFailedPrecondition,
                "device 0: needs 1.50 GiB but has 1.00 GiB");
  EXPECT_TRUE(ValidatePlan(task, TableWisePlan(task, {1})).ok());
}

TEST(ValidatePlanTest, StructureIsCheckedBeforeMemory) {
  Task task = test::MakeTask({MakeTable("big", 352321536, 4), MakeTable("x", 4, 4)}, 1, kGiB);
  Plan plan = TableWisePlan(task, {0, 0});
  plan.tables.pop_back();
  EXPECT_STATUS(ValidatePlan(task, plan), kInvalid, "table \"x\" is missing");
}

}  // namespace
}  // namespace shardplan
