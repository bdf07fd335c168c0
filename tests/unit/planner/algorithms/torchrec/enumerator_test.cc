#include "planner/algorithms/torchrec/enumerator.h"

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::torchrec {
namespace {

// The types the torchrec algorithm enumerated before row-level options.
const std::vector<ShardingType> kColumnLevel = {ShardingType::kTableWise,
                                               ShardingType::kColumnWise};

using test::MakeTable;
using test::MakeTask;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<int> ShardCounts(const std::vector<ShardingOption>& options) {
  std::vector<int> counts;
  for (const ShardingOption& option : options) counts.push_back(option.shards.size());
  return counts;
}

TEST(ColumnWiseShardCountsTest, HalvesWhileBlocksStayWholeMultiplesOfFourAndWideEnough) {
  EXPECT_THAT(ColumnWiseShardCounts(4, 4), IsEmpty());
  EXPECT_THAT(ColumnWiseShardCounts(12, 4), IsEmpty());  // 6 is no multiple of 4
  EXPECT_THAT(ColumnWiseShardCounts(64, 4), ElementsAre(2, 4, 8, 16));
  EXPECT_THAT(ColumnWiseShardCounts(128, 4), ElementsAre(2, 4, 8, 16, 32));
  EXPECT_THAT(ColumnWiseShardCounts(4, 32), IsEmpty());
  EXPECT_THAT(ColumnWiseShardCounts(12, 32), IsEmpty());
  EXPECT_THAT(ColumnWiseShardCounts(64, 32), ElementsAre(2));
  EXPECT_THAT(ColumnWiseShardCounts(128, 32), ElementsAre(2, 4));
  EXPECT_THAT(ColumnWiseShardCounts(24, 4), ElementsAre(2));  // 12, then 6 stops
}

TEST(EnumerateTest, TableWiseThenColumnWiseByShardCount) {
  const Task task = MakeTask({MakeTable("a", 1000, 4), MakeTable("b", 1000, 12),
                              MakeTable("c", 1000, 64, 3.0), MakeTable("d", 1000, 128)},
                             4, test::kGiB);
  absl::StatusOr<SearchSpace> space = Enumerate(task, 32, kColumnLevel);
  ASSERT_TRUE(space.ok()) << space.status();
  ASSERT_EQ(space->options_of_table.size(), 4u);
  EXPECT_THAT(ShardCounts(space->options_of_table[0]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[1]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[2]), ElementsAre(1, 2));
  EXPECT_THAT(ShardCounts(space->options_of_table[3]), ElementsAre(1, 2, 4));

  space = Enumerate(task, 4, kColumnLevel);
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_THAT(ShardCounts(space->options_of_table[2]), ElementsAre(1, 2, 4, 8, 16));
  EXPECT_THAT(ShardCounts(space->options_of_table[3]), ElementsAre(1, 2, 4, 8, 16, 32));

  // Geometry, perf and storage of c's two halves.
  const ShardingOption& halves = space->options_of_table[2][1];
  EXPECT_EQ(halves.table, 2);
  EXPECT_EQ(halves.sharding_type, ShardingType::kColumnWise);
  EXPECT_EQ(space->options_of_table[2][0].sharding_type, ShardingType::kTableWise);
  const ShardPerf expected =
      EstimateShardPerf(AnalyticParams{}, task.tables[2], 32, task.batch_size, task.topology);
  for (int j = 0; j < 2; ++j) {
    EXPECT_EQ(halves.shards[j].column_offset, 32 * j);
    EXPECT_EQ(halves.shards[j].columns, 32);
    EXPECT_EQ(halves.shards[j].bytes, ShardMemoryBytes(task.tables[2], 1000, 32, task.memory));
    EXPECT_DOUBLE_EQ(halves.shards[j].perf.total(), expected.total());
  }
  EXPECT_EQ(halves.BytesSum(), 1000 * 64 * 4);
}

TEST(EnumerateTest, FollowsTheTableConstraints) {
  Task task = MakeTask({MakeTable("tw_only", 1000, 64), MakeTable("cw_only", 1000, 64),
                        MakeTable("cw_narrow", 1000, 4), MakeTable("pinned", 1000, 64),
                        MakeTable("x", 1000, 64), MakeTable("y", 1000, 64)},
                       2, test::kGiB);
  task.tables[0].allowed_sharding_types = {ShardingType::kTableWise};
  task.tables[1].allowed_sharding_types = {ShardingType::kColumnWise};
  task.tables[2].allowed_sharding_types = {ShardingType::kColumnWise};
  task.tables[3].pinned_device = 1;
  task.colocate = {{"x", "y"}};
  absl::StatusOr<SearchSpace> space = Enumerate(task, 16, kColumnLevel);
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_THAT(ShardCounts(space->options_of_table[0]), ElementsAre(1));
  EXPECT_EQ(space->options_of_table[0][0].sharding_type, ShardingType::kTableWise);
  // COLUMN_WISE only: one full-width CW shard first, as TorchRec's CW of an undivided dim.
  EXPECT_THAT(ShardCounts(space->options_of_table[1]), ElementsAre(1, 2, 4));
  for (const ShardingOption& option : space->options_of_table[1]) {
    EXPECT_EQ(option.sharding_type, ShardingType::kColumnWise);
  }
  EXPECT_THAT(ShardCounts(space->options_of_table[2]), ElementsAre(1));
  EXPECT_EQ(space->options_of_table[2][0].sharding_type, ShardingType::kColumnWise);
  // Pinned and colocated tables stay whole: their shards would share one device anyway.
  EXPECT_THAT(ShardCounts(space->options_of_table[3]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[4]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[5]), ElementsAre(1));
  EXPECT_EQ(space->units.size(), 5u);
}

TEST(EnumerateTest, RefusesATableThatAllowsNoEnabledKind) {
  Task task = MakeTask({MakeTable("a", 1000, 64), MakeTable("rw", 1000, 64)}, 2, test::kGiB);
  task.tables[1].allowed_sharding_types = {ShardingType::kRowWise, ShardingType::kDataParallel};
  EXPECT_STATUS(Enumerate(task, 4, kColumnLevel), absl::StatusCode::kFailedPrecondition,
                "tables[1].allowed_sharding_types of table \"rw\" allows none of TABLE_WISE, "
                "COLUMN_WISE, the kinds torchrec produces here");
}

const std::vector<ShardingType> kAll = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                        ShardingType::kRowWise, ShardingType::kTableRowWise,
                                        ShardingType::kDataParallel};

std::vector<int64_t> Rows(const ShardingOption& option) {
  std::vector<int64_t> rows;
  for (const ShardOption& shard : option.shards) rows.push_back(shard.rows);
  return rows;
}

TEST(EnumerateTest, RowLevelOptionsFollowTorchRecGeometry) {
  // 10 rows on 2 hosts of 2: RW in ceil blocks over the world (3, 3, 3, 1), TWRW over a host
  // (5, 5), DP a whole replica per device; TorchRec's enumeration order after TW and CW.
  Task task = MakeTask({MakeTable("t", 10, 16, 2.0)}, 4, test::kGiB);
  task.topology.devices_per_host = 2;
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, kAll);
  ASSERT_TRUE(space.ok()) << space.status();
  const std::vector<ShardingOption>& options = space->options_of_table[0];
  ASSERT_EQ(options.size(), 6u);  // TW, CW x2, CW x4, RW, TWRW, DP
  EXPECT_EQ(options[3].sharding_type, ShardingType::kRowWise);
  EXPECT_THAT(Rows(options[3]), ElementsAre(3, 3, 3, 1));
  EXPECT_EQ(options[3].shards[3].row_offset, 9);
  EXPECT_EQ(options[3].partition_by(), PartitionBy::kUniform);
  EXPECT_EQ(options[4].sharding_type, ShardingType::kTableRowWise);
  EXPECT_THAT(Rows(options[4]), ElementsAre(5, 5));
  EXPECT_EQ(options[4].partition_by(), PartitionBy::kHost);
  EXPECT_EQ(options[5].sharding_type, ShardingType::kDataParallel);
  EXPECT_THAT(Rows(options[5]), ElementsAre(10, 10, 10, 10));
  EXPECT_EQ(options[5].shards[0].bytes, 10 * 16 * 4);
  // A row shard's perf: its compute plus the collectives charged to it, both positive.
  EXPECT_GT(options[3].shards[0].perf.fwd_comms, 0.0);
  EXPECT_GT(options[3].shards[0].perf.bwd_comms, options[3].shards[0].perf.fwd_comms);
}

TEST(EnumerateTest, RowWiseSplitsByMemoryWhenCapacitiesDiffer) {
  // TorchRec's _calculate_uneven_rw_shard_sizes_and_offsets: int(rows * share), the rest last.
  Task task = test::MakeTask({MakeTable("t", 1000, 8)},
                             std::vector<int64_t>{test::kGiB, 2 * test::kGiB, test::kGiB});
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, {ShardingType::kRowWise});
  ASSERT_TRUE(space.ok()) << space.status();
  ASSERT_EQ(space->options_of_table[0].size(), 1u);
  EXPECT_THAT(Rows(space->options_of_table[0][0]), ElementsAre(250, 500, 250));
}

TEST(EnumerateTest, NoRowOptionLeavesAShardEmpty) {
  // 5 rows over 4 ranks is 2, 2, 1, 0 for TorchRec; a plan's shards are never empty.
  Task task = MakeTask({MakeTable("t", 5, 8)}, 4, test::kGiB);
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, {ShardingType::kTableWise,
                                                          ShardingType::kRowWise});
  ASSERT_TRUE(space.ok()) << space.status();
  ASSERT_EQ(space->options_of_table[0].size(), 1u);
  EXPECT_EQ(space->options_of_table[0][0].sharding_type, ShardingType::kTableWise);
}

TEST(EnumerateTest, PinnedTablesGetNoRowLevelOption) {
  Task task = MakeTask({MakeTable("t", 1000, 8)}, 4, test::kGiB);
  task.tables[0].pinned_device = 2;
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, kAll);
  ASSERT_TRUE(space.ok()) << space.status();
  ASSERT_EQ(space->options_of_table[0].size(), 1u);
}

}  // namespace
}  // namespace shardplan::torchrec
