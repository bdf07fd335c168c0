#include "planner/algorithms/torchrec/partitioner.h"

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/torchrec/enumerator.h"
#include "planner/algorithms/torchrec/proposers.h"
#include "planner/domain/memory.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::torchrec {
namespace {

// The types the torchrec algorithm enumerated before row-level options.
const std::vector<ShardingType> kColumnLevelTypes = {ShardingType::kTableWise,
                                                     ShardingType::kColumnWise};

using test::MakeTable;
using test::MakeTask;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// a 640 B (pooling 10: the slowest), b 480 B, c 320 B, each dim 4, table-wise.
Task ThreeTables(std::vector<int64_t> capacities) {
  return MakeTask({TableOfBytes("a", 640, 4, 10.0), TableOfBytes("b", 480, 4, 1.0),
                   TableOfBytes("c", 320, 4, 1.0)},
                  std::move(capacities));
}

TEST(GreedyPerfPartitionTest, LargestFirstOntoTheLowestPerfDeviceThatFits) {
  Task task = ThreeTables({1024, 1024});
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, kColumnLevelTypes);
  ASSERT_TRUE(space.ok()) << space.status();
  std::optional<Placement> placement = GreedyPerfPartition(task, *space, {0, 0, 0});
  ASSERT_TRUE(placement.has_value());
  // a -> 0 (ties to the lower index), b -> 1, c -> 1 (b is faster than a).
  EXPECT_THAT(placement->device_of_shard,
              ElementsAre(ElementsAre(0), ElementsAre(1), ElementsAre(1)));
  EXPECT_THAT(placement->device_bytes, ElementsAre(640, 800));
  const double perf_a = space->options_of_table[0][0].PerfSum();
  const double perf_b = space->options_of_table[1][0].PerfSum();
  const double perf_c = space->options_of_table[2][0].PerfSum();
  ASSERT_GT(perf_a, perf_b + perf_c);
  EXPECT_DOUBLE_EQ(placement->device_perf[0], perf_a);
  EXPECT_DOUBLE_EQ(placement->device_perf[1], perf_b + perf_c);
  EXPECT_DOUBLE_EQ(placement->perf_rating, perf_a);

  // Device 1 has no room for c next to b: c goes to the slower device 0.
  task = ThreeTables({1024, 700});
  placement = GreedyPerfPartition(task, *space, {0, 0, 0});
  ASSERT_TRUE(placement.has_value());
  EXPECT_THAT(placement->device_of_shard,
              ElementsAre(ElementsAre(0), ElementsAre(1), ElementsAre(0)));
}

TEST(GreedyPerfPartitionTest, AShardThatFitsNowhereRejectsTheProposal) {
  const Task task = ThreeTables({600, 600});
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, kColumnLevelTypes);
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_EQ(GreedyPerfPartition(task, *space, {0, 0, 0}), std::nullopt);
}

TEST(GreedyPerfPartitionTest, ColumnShardsArePlacedOneByOne) {
  // 16 rows x 64 columns x 4 B = 4 KiB whole, 2 KiB a half.
  Task task = MakeTask({MakeTable("wide", 16, 64)}, 2, 3000);
  absl::StatusOr<SearchSpace> space = Enumerate(task, 32, kColumnLevelTypes);
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_EQ(GreedyPerfPartition(task, *space, {0}), std::nullopt);
  std::optional<Placement> halves = GreedyPerfPartition(task, *space, {1});
  ASSERT_TRUE(halves.has_value());
  EXPECT_THAT(halves->device_of_shard, ElementsAre(ElementsAre(0, 1)));
  // With room for both halves on device 0, the second still goes to the idle device 1.
  task = MakeTask({MakeTable("wide", 16, 64)}, 2, 8192);
  halves = GreedyPerfPartition(task, *space, {1});
  ASSERT_TRUE(halves.has_value());
  EXPECT_THAT(halves->device_of_shard, ElementsAre(ElementsAre(0, 1)));
}

TEST(GreedyPerfPartitionTest, PinnedFirstAndColocatedTogether) {
  Task task = MakeTask({TableOfBytes("a", 640, 4, 10.0), TableOfBytes("b", 480),
                        TableOfBytes("c", 320), TableOfBytes("p", 160)},
                       {2048, 2048, 2048});
  task.tables[3].pinned_device = 0;
  task.colocate = {{"b", "c"}};
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4, kColumnLevelTypes);
  ASSERT_TRUE(space.ok()) << space.status();
  std::optional<Placement> placement = GreedyPerfPartition(task, *space, {0, 0, 0, 0});
  ASSERT_TRUE(placement.has_value());
  // p on 0 first; then b+c (800 B) before a (640 B): device 1 is the first with perf 0.
  EXPECT_THAT(placement->device_of_shard,
              ElementsAre(ElementsAre(2), ElementsAre(1), ElementsAre(1), ElementsAre(0)));
}

}  // namespace
}  // namespace shardplan::torchrec
