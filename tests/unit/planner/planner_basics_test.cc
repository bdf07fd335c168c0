// Tables, topology, tasks, table-wise plans and memory accounting.

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/memory.h"
#include "planner/plan.h"
#include "planner/table.h"
#include "planner/task.h"
#include "planner/topology.h"
#include "planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(TableTest, ElementBytes) {
  EXPECT_EQ(ElementBytes(ElementType::kFp32), 4);
  EXPECT_EQ(ElementBytes(ElementType::kFp16), 2);
  EXPECT_EQ(ElementBytes(ElementType::kInt8), 1);
}

TEST(TableTest, EmptyAllowedListAllowsEverything) {
  Table table = MakeTable("t", 10, 4);
  EXPECT_TRUE(table.Allows(ShardingType::kTableWise));
  EXPECT_TRUE(table.Allows(ShardingType::kDataParallel));
}

TEST(TableTest, AllowedListRestricts) {
  Table table = MakeTable("t", 10, 4);
  table.allowed_sharding_types = {ShardingType::kColumnWise, ShardingType::kRowWise};
  EXPECT_FALSE(table.Allows(ShardingType::kTableWise));
  EXPECT_TRUE(table.Allows(ShardingType::kColumnWise));
  EXPECT_TRUE(table.Allows(ShardingType::kRowWise));
  EXPECT_FALSE(table.Allows(ShardingType::kDataParallel));
}

TEST(TopologyTest, LocalWorldSizeResolvesZero) {
  Topology topology;
  topology.memory_bytes = {1, 1, 1, 1};
  EXPECT_EQ(topology.local_world_size(), 4);
  EXPECT_TRUE(topology.single_host());
  topology.devices_per_host = 2;
  EXPECT_EQ(topology.local_world_size(), 2);
  EXPECT_FALSE(topology.single_host());
  topology.devices_per_host = 8;
  EXPECT_TRUE(topology.single_host());
}

TEST(MakeTopologyTest, UniformCapacities) {
  absl::StatusOr<Topology> topology = MakeTopology(4, 4.0, {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->memory_bytes, ElementsAre(4 * kGiB, 4 * kGiB, 4 * kGiB, 4 * kGiB));
  EXPECT_EQ(topology->devices_per_host, 0);
  EXPECT_EQ(topology->intra_host_bandwidth_gibps, kDefaultIntraHostBandwidthGiBps);
  EXPECT_EQ(topology->inter_host_bandwidth_gibps, kDefaultInterHostBandwidthGiBps);
}

TEST(MakeTopologyTest, PerDeviceCapacitiesOverride) {
  absl::StatusOr<Topology> topology = MakeTopology(3, 16.0, {1.0, 0.5, 2.25}, 2, 100, 10);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->memory_bytes, ElementsAre(kGiB, kGiB / 2, 9 * kGiB / 4));
  EXPECT_EQ(topology->devices_per_host, 2);
  EXPECT_EQ(topology->intra_host_bandwidth_gibps, 100);
  EXPECT_EQ(topology->inter_host_bandwidth_gibps, 10);
}

TEST(MakeTopologyTest, PerDeviceListGivesTheCountWhenNumDevicesIsZero) {
  absl::StatusOr<Topology> topology = MakeTopology(0, 0, {1.0, 2.0}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->num_devices(), 2);
}

TEST(MakeTopologyTest, NoDevicesIsLeftToValidation) {
  absl::StatusOr<Topology> topology = MakeTopology(0, 0, {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->num_devices(), 0);
}

TEST(MakeTopologyTest, RoundsGiBToTheNearestByte) {
  // 2^-31 GiB is half a byte: llround rounds half away from zero.
  absl::StatusOr<Topology> topology = MakeTopology(1, 1.0 + std::ldexp(1.0, -31), {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->memory_bytes[0], kGiB + 1);
}

TEST(MakeTopologyTest, CountMismatchNamesBothFields) {
  EXPECT_STATUS(MakeTopology(4, 0, {1, 2, 3}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.per_device_memory_gib: has 3 entries but topology.num_devices is 4");
}

TEST(MakeTopologyTest, RejectsBadValuesByField) {
  EXPECT_STATUS(MakeTopology(-1, 4, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.num_devices: must be at least 1, got -1");
  EXPECT_STATUS(MakeTopology(2, 0, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: must be positive, got 0");
  EXPECT_STATUS(MakeTopology(2, -1, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: must be positive");
  EXPECT_STATUS(MakeTopology(2, std::numeric_limits<double>::infinity(), {}, 0, 0, 0),
                absl::StatusCode::kInvalidArgument, "topology.device_memory_gib: must be finite");
  EXPECT_STATUS(MakeTopology(2, 1e12, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: 1e+12 GiB is too large");
  EXPECT_STATUS(MakeTopology(2, 0, {1.0, std::nan("")}, 0, 0, 0),
                absl::StatusCode::kInvalidArgument,
                "topology.per_device_memory_gib[1]: must be finite");
  EXPECT_STATUS(MakeTopology(2, 1, {}, -1, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.devices_per_host: must be >= 0");
  EXPECT_STATUS(MakeTopology(2, 1, {}, int64_t{1} << 21, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.devices_per_host: must be at most 1048576, got 2097152");
  EXPECT_STATUS(MakeTopology(2, 1, {}, 0, -5, 0), absl::StatusCode::kInvalidArgument,
                "topology.intra_host_bandwidth_gibps");
  EXPECT_STATUS(MakeTopology(2, 1, {}, 0, 0, std::nan("")), absl::StatusCode::kInvalidArgument,
                "topology.inter_host_bandwidth_gibps");
}

TEST(MakeTopologyTest, RefusesAbsurdDeviceCountsBeforeAllocating) {
  EXPECT_STATUS(MakeTopology(int64_t{1} << 40, 1, {}, 0, 0, 0),
                absl::StatusCode::kResourceExhausted, "topology.num_devices: 1099511627776");
}

TEST(CanonicalTaskTest, SortsTablesAndColocationGroups) {
  Task task;
  task.tables = {MakeTable("c", 1, 4), MakeTable("a", 2, 4), MakeTable("b", 3, 4)};
  task.colocate = {{"z", "y"}, {"c", "a"}};
  const Task canonical = CanonicalTask(task);
  ASSERT_EQ(canonical.tables.size(), 3u);
  EXPECT_EQ(canonical.tables[0].name, "a");
  EXPECT_EQ(canonical.tables[0].rows, 2);
  EXPECT_EQ(canonical.tables[1].name, "b");
  EXPECT_EQ(canonical.tables[2].name, "c");
  EXPECT_THAT(canonical.colocate, ElementsAre(ElementsAre("a", "c"), ElementsAre("y", "z")));
}

TEST(CanonicalTaskTest, OrderOfInputDoesNotMatter) {
  Task one;
  one.tables = {MakeTable("x", 1, 4), MakeTable("y", 2, 8)};
  one.colocate = {{"y", "x"}};
  Task two;
  two.tables = {MakeTable("y", 2, 8), MakeTable("x", 1, 4)};
  two.colocate = {{"x", "y"}};
  const Task a = CanonicalTask(one);
  const Task b = CanonicalTask(two);
  ASSERT_EQ(a.tables.size(), b.tables.size());
  for (size_t i = 0; i < a.tables.size(); ++i) EXPECT_EQ(a.tables[i].name, b.tables[i].name);
  EXPECT_EQ(a.colocate, b.colocate);
}

TEST(TableWisePlanTest, OneWholeShardPerTable) {
  Task task = test::MakeTask({MakeTable("a", 100, 16), MakeTable("b", 7, 8)}, 2, kGiB);
  const Plan plan = TableWisePlan(task, {1, 0});
  ASSERT_EQ(plan.tables.size(), 2u);
  EXPECT_EQ(plan.tables[0].table, "a");
  EXPECT_EQ(plan.tables[0].sharding_type, ShardingType::kTableWise);
  ASSERT_EQ(plan.tables[0].shards.size(), 1u);
  const Shard& shard = plan.tables[0].shards[0];
  EXPECT_EQ(shard.device, 1);
  EXPECT_EQ(shard.row_offset, 0);
  EXPECT_EQ(shard.row_count, 100);
  EXPECT_EQ(shard.column_offset, 0);
  EXPECT_EQ(shard.column_count, 16);
  EXPECT_EQ(plan.tables[1].shards[0].device, 0);
  EXPECT_EQ(plan.tables[1].shards[0].row_count, 7);
  EXPECT_EQ(plan.tables[1].shards[0].column_count, 8);
  EXPECT_TRUE(plan.devices.empty());
}

TEST(MemoryTest, WeightsOnlyByDefault) {
  Table table = MakeTable("t", 1000, 64);
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64 * 4);
  EXPECT_EQ(ShardMemoryBytes(table, 1000, 32, {}), 1000 * 32 * 4);
  EXPECT_EQ(ShardMemoryBytes(table, 10, 4, {}), 160);
  table.element_type = ElementType::kFp16;
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64 * 2);
  table.element_type = ElementType::kInt8;
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64);
}

TEST(MemoryTest, MultipliersScaleTheWeights) {
  const Table table = MakeTable("t", 1000, 64);
  MemoryOptions adam;
  adam.optimizer_state_multiplier = 2.0;
  EXPECT_EQ(TableMemoryBytes(table, adam), 3 * 256000);
  adam.io_buffer_multiplier = 0.5;
  EXPECT_EQ(TableMemoryBytes(table, adam), 3.5 * 256000);
}

TEST(MemoryTest, RoundsUpButIgnoresBinaryNoise) {
  const Table table = MakeTable("t", 3, 4);  // 48 bytes
  MemoryOptions options;
  options.io_buffer_multiplier = 1.0 / 3.0;  // 64 bytes up to binary noise
  EXPECT_EQ(TableMemoryBytes(table, options), 64);
  options.io_buffer_multiplier = 0.1;  // 52.8 -> 53
  EXPECT_EQ(TableMemoryBytes(table, options), 53);
  const Table thousand = MakeTable("k", 250, 1);  // 1000 bytes (dim is not validated here)
  options.io_buffer_multiplier = 0.1;             // 1000 * 1.1 is 1100.0000000000002 in doubles
  EXPECT_EQ(TableMemoryBytes(thousand, options), 1100);
  options.io_buffer_multiplier = 0.0015;  // 1001.5 -> 1002
  EXPECT_EQ(TableMemoryBytes(thousand, options), 1002);
}

TEST(MemoryTest, SaturatesInsteadOfOverflowing) {
  const Table table = MakeTable("t", int64_t{1} << 62, 1 << 16);
  EXPECT_EQ(TableMemoryBytes(table, {}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ShardMemoryBytes(table, 0, 4, {}), 0);
}

TEST(MemoryTest, AddBytesSaturatesAndFormatGiBRounds) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(AddBytes(3 * kGiB, kGiB), 4 * kGiB);
  EXPECT_EQ(AddBytes(kMax - 1, 1), kMax);
  EXPECT_EQ(AddBytes(kMax, kMax), kMax);
  EXPECT_EQ(FormatGiB(3 * kGiB / 2), "1.50 GiB");
  EXPECT_EQ(FormatGiB(0), "0.00 GiB");
  EXPECT_EQ(FormatGiB(kGiB / 1000), "0.00 GiB");
}

}  // namespace
}  // namespace shardplan
