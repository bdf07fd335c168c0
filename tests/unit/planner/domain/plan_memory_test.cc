#include "planner/domain/plan_memory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;

// t: 1000 x 64 fp32 (256,000 bytes); u: 100 x 16 (6,400 bytes); 4 devices.
Task FourDevices() {
  return test::MakeTask({MakeTable("t", 1000, 64), MakeTable("u", 100, 16)}, 4, test::kGiB);
}

TEST(PlanMemoryTest, CountsEveryReplicaWhereItLives) {
  const Task task = FourDevices();
  Plan plan;
  TableSharding t = test::EvenShards(ShardingType::kDataParallel, {0, 1, 2, 3}, 1000, 64);
  t.table = "t";
  TableSharding u = test::ShardingOf(ShardingType::kTableWise, "u");
  u.shards = {{2, 0, 100, 0, 16}};
  plan.tables = {t, u};
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(task, plan);
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ(memory->devices[0].bytes, 256000);
  EXPECT_EQ(memory->devices[0].replicated_bytes, 256000);
  EXPECT_EQ(memory->devices[2].bytes, 256000 + 6400);
  EXPECT_EQ(memory->devices[2].replicated_bytes, 256000);
  EXPECT_EQ(memory->devices[2].shards, 2);
  EXPECT_EQ(memory->tables[0].unique_bytes, 256000);
  EXPECT_EQ(memory->tables[0].bytes, 4 * 256000);
  EXPECT_EQ(memory->unique_bytes, 256000 + 6400);
  EXPECT_EQ(memory->bytes, 4 * 256000 + 6400);
  EXPECT_DOUBLE_EQ(memory->ReplicatedMemoryMultiplier(), (4.0 * 256000 + 6400) / (256000 + 6400));
}

TEST(PlanMemoryTest, SplitsWeightsMultipliersAndOptimizerState) {
  Task task = FourDevices();
  task.memory.optimizer_state_multiplier = 0.5;
  task.memory.optimizer = Optimizer::kAdam;
  Plan plan;
  // The hottest 10 rows on every device, the rest in two row blocks.
  TableSharding t = test::ShardingOf(ShardingType::kRowWise, "t");
  t.row_order = RowOrder::kFrequencyRank;
  for (int32_t d = 0; d < 4; ++d) t.shards.push_back({d, 0, 10, 0, 64});
  t.shards.push_back({0, 10, 495, 0, 64});
  t.shards.push_back({1, 505, 495, 0, 64});
  TableSharding u = test::ShardingOf(ShardingType::kTableWise, "u");
  u.shards = {{3, 0, 100, 0, 16}};
  plan.tables = {t, u};
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(task, plan);
  ASSERT_TRUE(memory.ok()) << memory.status();
  // Device 0: hot rows (2,560 weight bytes) and 495 rows (126,720).
  const DeviceMemory& d0 = memory->devices[0];
  EXPECT_EQ(d0.parts.weights, 2560 + 126720);
  EXPECT_EQ(d0.parts.multiplied, (2560 + 126720) / 2);
  EXPECT_EQ(d0.parts.optimizer_state, 2 * (2560 + 126720));
  EXPECT_EQ(d0.bytes, d0.parts.total());
  EXPECT_EQ(d0.replicated_bytes, 2560 * 7 / 2);
  // Every figure is ShardMemoryBytes summed over the device's shards.
  for (int d = 0; d < 4; ++d) {
    int64_t expected = 0;
    for (const TableSharding& sharding : plan.tables) {
      const Table& table = sharding.table == "t" ? task.tables[0] : task.tables[1];
      for (const Shard& shard : sharding.shards) {
        if (shard.device == d) {
          expected += ShardMemoryBytes(table, shard.row_count, shard.column_count, task.memory);
        }
      }
    }
    EXPECT_EQ(memory->devices[d].bytes, expected) << "device " << d;
  }
  // Held once, the table costs what the row-wise plan would; the hot rows three times more.
  EXPECT_EQ(memory->tables[0].unique_bytes, 256000 * 7 / 2);
  EXPECT_EQ(memory->tables[0].bytes - memory->tables[0].unique_bytes, 3 * 2560 * 7 / 2);
}

TEST(PlanMemoryTest, NamesAnUnknownTableOrDevice) {
  const Task task = FourDevices();
  Plan plan;
  plan.tables = {test::ShardingOf(ShardingType::kTableWise, "nope")};
  EXPECT_EQ(PlanMemoryOf(task, plan).status().message(), "tables[0].table: unknown table \"nope\"");
  TableSharding u = test::ShardingOf(ShardingType::kTableWise, "u");
  u.shards = {{4, 0, 100, 0, 16}};
  plan.tables = {u};
  EXPECT_EQ(PlanMemoryOf(task, plan).status().message(),
            "tables[0].shards[0].device: device 4 does not exist (topology.num_devices is 4)");
}

// q: a SEQUENCE table of 100 x 8 rows, L = 10, uniform; 2 devices, global batch 400 (200 each).
Task SequenceOnTwoDevices(Pooling pooling) {
  Table table = MakeTable("q", 100, 8, 10.0);
  table.pooling = pooling;
  Task task = test::MakeTask({table}, 2, test::kGiB);
  task.batch_size = 400;
  return task;
}

TableSharding RowHalves(int64_t replicated_rows) {
  TableSharding q = test::ShardingOf(ShardingType::kRowWise, "q");
  if (replicated_rows > 0)
    q.shards = {{0, 0, replicated_rows, 0, 8}, {1, 0, replicated_rows, 0, 8}};
  const int64_t half = (100 - replicated_rows) / 2;
  q.shards.push_back({0, replicated_rows, half, 0, 8});
  q.shards.push_back({1, replicated_rows + half, 100 - replicated_rows - half, 0, 8});
  return q;
}

TEST(PlanMemoryTest, SequenceTablesNeedAllToAllBuffersBesideTheLedger) {
  // Row-wise: each device looks up B L rows for the two requesters and receives B L rows for
  // its own 200 samples: 2 x 200 x 10 x 8 x 4 bytes.
  Plan plan;
  plan.tables = {RowHalves(0)};
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(SequenceOnTwoDevices(Pooling::kSequence), plan);
  ASSERT_TRUE(memory.ok()) << memory.status();
  for (const DeviceMemory& device : memory->devices) {
    EXPECT_EQ(device.sequence_buffer_bytes, 2 * 200 * 10 * 8 * 4);
    EXPECT_EQ(device.bytes, 50 * 8 * 4);  // the ledger is the weights alone
  }
  // Rows 0-9 on both devices serve 10% of the lookups locally: no all-to-all, no buffer.
  plan.tables = {RowHalves(10)};
  memory = PlanMemoryOf(SequenceOnTwoDevices(Pooling::kSequence), plan);
  ASSERT_TRUE(memory.ok()) << memory.status();
  for (const DeviceMemory& device : memory->devices) {
    EXPECT_EQ(device.sequence_buffer_bytes, 2 * 200 * 10 * 8 * 4 * 9 / 10);
  }
  // Pooled outputs are B x D, in the I/O multiplier as before; a data-parallel table serves
  // every device from its own replica.
  plan.tables = {RowHalves(0)};
  memory = PlanMemoryOf(SequenceOnTwoDevices(Pooling::kSum), plan);
  EXPECT_EQ(memory->devices[0].sequence_buffer_bytes, 0);
  TableSharding everywhere = test::EvenShards(ShardingType::kDataParallel, {0, 1}, 100, 8);
  everywhere.table = "q";
  plan.tables = {everywhere};
  memory = PlanMemoryOf(SequenceOnTwoDevices(Pooling::kSequence), plan);
  EXPECT_EQ(memory->devices[1].sequence_buffer_bytes, 0);
}

TEST(PlanMemoryTest, AnEmptyPlanHasAMultiplierOfOne) {
  EXPECT_DOUBLE_EQ(PlanMemoryOf(FourDevices(), Plan{})->ReplicatedMemoryMultiplier(), 1.0);
}

}  // namespace
}  // namespace shardplan
