#include "planner/domain/memory.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(MemoryTest, WeightsOnlyByDefault) {
  Table table = MakeTable("t", 1000, 64);
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64 * 4);
  EXPECT_EQ(ShardMemoryBytes(table, 1000, 32, {}), 1000 * 32 * 4);
  EXPECT_EQ(ShardMemoryBytes(table, 10, 4, {}), 160);
  table.element_type = ElementType::kFp16;
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64 * 2);
  table.element_type = ElementType::kInt8;
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64);
  table.element_type = ElementType::kBf16;
  EXPECT_EQ(TableMemoryBytes(table, {}), 1000 * 64 * 2);
}

TEST(MemoryTest, MultipliersScaleTheWeights) {
  const Table table = MakeTable("t", 1000, 64);
  MemoryOptions adam;
  adam.optimizer_state_multiplier = 2.0;
  EXPECT_EQ(TableMemoryBytes(table, adam), 3 * 256000);
  adam.io_buffer_multiplier = 0.5;
  EXPECT_EQ(TableMemoryBytes(table, adam), 3.5 * 256000);
}

TEST(MemoryTest, OptimizerStateAsTorchRecCountsIt) {
  const Table table = MakeTable("t", 1000, 64);  // 256,000 bytes of weights
  MemoryOptions options;
  options.optimizer = Optimizer::kSgd;
  EXPECT_EQ(TableMemoryBytes(table, options), 256000);
  options.optimizer = Optimizer::kAdam;
  EXPECT_EQ(TableMemoryBytes(table, options), 3 * 256000);
  options.optimizer = Optimizer::kOther;
  EXPECT_EQ(TableMemoryBytes(table, options), 2 * 256000);
  // Row-wise Adagrad: one fp32 per row, 4,000 bytes; a column shard holds its share (TorchRec's
  // 1/dim multiplier), rounded up.
  options.optimizer = Optimizer::kRowwiseAdagrad;
  EXPECT_EQ(TableMemoryBytes(table, options), 256000 + 4000);
  EXPECT_EQ(ShardMemoryBytes(table, 1000, 16, options), 64000 + 1000);
  EXPECT_EQ(ShardMemoryBytes(table, 3, 5, options), 60 + 1);  // ceil(60 / 64)
  // The multipliers add to it.
  options.optimizer_state_multiplier = 1.0;
  EXPECT_EQ(TableMemoryBytes(table, options), 2 * 256000 + 4000);
}

TEST(MemoryTest, TorchRecReservationShortfallNamesTheFullestDevice) {
  Task task;
  std::vector<DeviceCost> devices(3);
  for (int d = 0; d < 3; ++d) {
    devices[d].device = d;
    devices[d].memory_capacity_bytes = 1000;
  }
  devices[0].memory_bytes = 850;  // exactly what 15% leaves: fits
  devices[1].memory_bytes = 900;
  devices[2].memory_bytes = 950;
  std::optional<ReservationShortfall> shortfall = TorchRecReservationShortfall(task, devices);
  ASSERT_TRUE(shortfall.has_value());
  EXPECT_EQ(shortfall->device, 2);
  EXPECT_EQ(shortfall->bytes, 950);
  EXPECT_EQ(shortfall->capacity_bytes, 1000);
  EXPECT_EQ(shortfall->usable_bytes, 850);
  devices[1].memory_bytes = devices[2].memory_bytes = 10;
  EXPECT_FALSE(TorchRecReservationShortfall(task, devices).has_value());
  devices[2].memory_bytes = 950;
  task.memory.storage_reservation = 0.1;  // the task reserves storage of its own: no warning
  EXPECT_FALSE(TorchRecReservationShortfall(task, devices).has_value());
}

TEST(MemoryTest, ReserveStorageKeepsTheNamedCapacities) {
  Topology topology;
  topology.memory_bytes = {1000, 2001};
  ReserveStorage(0.0, topology);
  EXPECT_THAT(topology.memory_bytes, ElementsAre(1000, 2001));
  EXPECT_TRUE(topology.requested_memory_bytes.empty());
  ReserveStorage(0.15, topology);
  EXPECT_THAT(topology.memory_bytes, ElementsAre(850, 1700));  // floor(0.85 x 2001) = 1700
  EXPECT_THAT(topology.requested_memory_bytes, ElementsAre(1000, 2001));
  EXPECT_THAT(topology.named_memory_bytes(), ElementsAre(1000, 2001));
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
