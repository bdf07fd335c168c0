#include "groundtruth/shard_kernels.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "groundtruth/sim/compute_model.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kBatch = 65536;

// A DLRM-like table: 4M rows, pooling 20, dim 64, the published aggregate histogram's shape.
Table BigTable() {
  Table table;
  table.name = "big";
  table.rows = 4'000'000;
  table.dim = 64;
  table.pooling_factor = 20.0;
  table.access_bins = {0.473, 0.152,  0.139,  0.112,  0.072, 0.032, 0.011, 0.005, 0.002,
                       0.001, 0.0005, 0.0002, 0.0001, 0.0,   0.0,   0.0,   0.0};
  return table;
}

ShardView Shard(const Table& table, ShardingType sharding, int64_t rows, int32_t columns,
                int32_t group_size = 1, int64_t row_offset = 0) {
  return ShardView{.table = &table,
                   .rows = rows,
                   .columns = columns,
                   .sharding = sharding,
                   .group_size = group_size,
                   .row_offset = row_offset};
}

TEST(DeviceKernelCallsTest, ColumnLevelShardsAreOneCallAtTheGlobalBatch) {
  const Table table = BigTable();
  const std::vector<ShardView> shards = {Shard(table, ShardingType::kTableWise, table.rows, 64),
                                         Shard(table, ShardingType::kColumnWise, table.rows, 32)};
  const std::vector<KernelCall> calls = DeviceKernelCalls(shards, kBatch);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].batch_size, kBatch);
  ASSERT_EQ(calls[0].tables.size(), 2u);
  EXPECT_EQ(calls[0].tables[1].dim, 32);
  EXPECT_EQ(calls[0].tables[1].rows, table.rows);
  EXPECT_EQ(calls[0].tables[1].pooling_factor, table.pooling_factor);  // every lookup
}

TEST(DeviceKernelCallsTest, AnEmptyDeviceIsOneEmptyCall) {
  const std::vector<KernelCall> calls = DeviceKernelCalls({}, kBatch);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_THAT(calls[0].tables, IsEmpty());
}

TEST(DeviceKernelCallsTest, ARowBlockServesItsShareOfTheLookups) {
  const Table table = BigTable();
  const std::vector<ShardView> shards = {
      Shard(table, ShardingType::kRowWise, 1'000'000, 64, 4, 3'000'000)};
  const std::vector<KernelCall> calls = DeviceKernelCalls(shards, kBatch);
  ASSERT_EQ(calls.size(), 1u);             // no column-level call
  EXPECT_EQ(calls[0].batch_size, kBatch);  // partial sums for every sample
  ASSERT_EQ(calls[0].tables.size(), 1u);
  const Table& block = calls[0].tables[0];
  EXPECT_EQ(block.rows, 1'000'000);
  EXPECT_EQ(block.dim, 64);
  EXPECT_DOUBLE_EQ(block.pooling_factor, 5.0);  // a quarter of the rows, a quarter of the lookups
  EXPECT_EQ(block.access_bins, table.access_bins);
}

// A table whose ids are its ranks: the hottest 1% of a Zipf(1) table serves what its curve
// says (72.4% of 10M rows' lookups in the hottest 100k), with that range's access classes.
TEST(DeviceKernelCallsTest, ARankOrderedBlockServesItsCurvesShare) {
  Table table = BigTable();
  table.rows = 10'000'000;
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  table.access_profile.rows_in_rank_order = true;
  const std::vector<ShardView> hot = {Shard(table, ShardingType::kRowWise, 100'000, 64, 2)};
  const std::vector<KernelCall> calls = DeviceKernelCalls(hot, kBatch);
  ASSERT_EQ(calls.size(), 1u);
  const Table& block = calls[0].tables[0];
  EXPECT_NEAR(block.pooling_factor, 20.0 * 0.72416, 1e-3);
  EXPECT_FALSE(block.access_profile.has_curve());  // the block is not the table
  ASSERT_EQ(block.access_bins.size(), static_cast<size_t>(kNumAccessBins));
  EXPECT_NE(block.access_bins, table.access_bins);
  EXPECT_GT(block.access_bins[16], 0.0);  // its hottest rows see > 32768 lookups a batch
  // The cold 99% block: the rest of the lookups, no row that hot.
  const std::vector<ShardView> cold = {
      Shard(table, ShardingType::kRowWise, 9'900'000, 64, 2, 100'000)};
  const std::vector<KernelCall> cold_calls = DeviceKernelCalls(cold, kBatch);
  const Table& cold_block = cold_calls[0].tables[0];
  EXPECT_NEAR(cold_block.pooling_factor, 20.0 * (1 - 0.72416), 1e-3);
  EXPECT_EQ(cold_block.access_bins[16], 0.0);
}

// The simulator on a block of half the rows: half the lookups and, with the histogram's classes
// in proportion, half the distinct rows.
TEST(DeviceKernelCallsTest, HalfTheRowsComputeHalfTheLookupsOnTheSimulator) {
  const Table table = BigTable();
  const HardwareProfile profile = *FindHardwareProfile("rtx2080ti");
  const std::vector<ShardView> half = {Shard(table, ShardingType::kRowWise, 2'000'000, 64, 2)};
  const std::vector<KernelCall> calls = DeviceKernelCalls(half, kBatch);
  ASSERT_EQ(calls.size(), 1u);
  const ComputeBreakdown whole = SimulateCompute(profile, std::vector<Table>{table}, kBatch);
  const ComputeBreakdown block = SimulateCompute(profile, calls[0].tables, kBatch);
  EXPECT_DOUBLE_EQ(block.lookups, whole.lookups / 2);
  EXPECT_NEAR(block.distinct_rows / whole.distinct_rows, 0.5, 1e-9);
  // Less work, but the same batch of bags, outputs and fixed overheads: between half and all.
  EXPECT_LT(block.total_ms(), whole.total_ms());
  EXPECT_GT(block.total_ms(), whole.total_ms() / 2);
}

TEST(DeviceKernelCallsTest, EachShardingFamilyIsItsOwnCallInOrder) {
  const Table table = BigTable();
  Table small = BigTable();
  small.name = "small";
  small.rows = 1000;
  const std::vector<ShardView> shards = {
      Shard(small, ShardingType::kDataParallel, 1000, 64, 4),
      Shard(table, ShardingType::kTableRowWise, 2'000'000, 64, 2),
      Shard(table, ShardingType::kRowWise, 0, 64, 4),  // an empty block
      Shard(table, ShardingType::kRowWise, 1'000'000, 64, 4),
      Shard(table, ShardingType::kTableWise, table.rows, 64)};
  const std::vector<KernelCall> calls = DeviceKernelCalls(shards, kBatch);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].tables[0].name, "big");  // table-wise
  EXPECT_EQ(calls[1].tables.size(), 1u);      // row-wise, the empty block left out
  EXPECT_DOUBLE_EQ(calls[1].tables[0].pooling_factor, 5.0);
  EXPECT_DOUBLE_EQ(calls[2].tables[0].pooling_factor, 10.0);  // table-row-wise
  EXPECT_EQ(calls[3].tables[0].name, "small");
  EXPECT_EQ(calls[3].tables[0].rows, 1000);  // the whole replica
  EXPECT_EQ(calls[3].tables[0].pooling_factor, 20.0);
  EXPECT_EQ(calls[3].batch_size, kBatch / 4);  // its device's share of the batch
  std::vector<int64_t> batches;
  for (const KernelCall& call : calls) batches.push_back(call.batch_size);
  EXPECT_THAT(batches, ElementsAre(kBatch, kBatch, kBatch, kBatch / 4));
}

TEST(DeviceKernelCallsTest, AReplicaBatchIsRoundedToTheNearestSample) {
  const Table table = BigTable();
  EXPECT_EQ(DeviceKernelCalls(std::vector<ShardView>{Shard(table, ShardingType::kDataParallel,
                                                           table.rows, 64, 3)},
                              1000)[0]
                .batch_size,
            333);
  EXPECT_EQ(DeviceKernelCalls(std::vector<ShardView>{Shard(table, ShardingType::kDataParallel,
                                                           table.rows, 64, 3)},
                              1001)[0]
                .batch_size,
            334);
}

}  // namespace
}  // namespace shardplan
