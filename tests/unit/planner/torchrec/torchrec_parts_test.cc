// The torchrec planner's stages on hand-sized inputs: estimator, enumerator, proposers and
// partitioner.

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/memory.h"
#include "planner/torchrec/enumerator.h"
#include "planner/torchrec/partitioner.h"
#include "planner/torchrec/proposers.h"
#include "planner/torchrec/shard_perf.h"
#include "planner_test_util.h"

namespace shardplan::torchrec {
namespace {

using test::MakeTable;
using test::MakeTask;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---------------------------------------------------------------------------------------------
// Estimator

TEST(ShardPerfTest, TaskOverloadMatchesTorchRecWorkedExample) {
  // The worked example of docs/cost-models.md ("Batch"): TW, cuda fused, fp32, W = L = 4,
  // per-rank batch 512, pooling factor 10, dim 64.
  Task task = MakeTask({MakeTable("t", 1000, 64, 10.0)}, 4, test::kGiB);
  task.batch_size = 4 * 512;
  task.topology.devices_per_host = 4;
  const ShardPerf perf =
      EstimateShardPerf(AnalyticParams{}, task.tables[0], 64, task.batch_size, task.topology);
  EXPECT_NEAR(perf.fwd_compute, 0.0070816431, 1e-9);
  EXPECT_NEAR(perf.total(), 0.0228725336, 1e-9);
}

// ---------------------------------------------------------------------------------------------
// Enumerator

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

std::vector<int> ShardCounts(const std::vector<ShardingOption>& options) {
  std::vector<int> counts;
  for (const ShardingOption& option : options) counts.push_back(option.shards.size());
  return counts;
}

TEST(EnumerateTest, TableWiseThenColumnWiseByShardCount) {
  const Task task = MakeTask({MakeTable("a", 1000, 4), MakeTable("b", 1000, 12),
                              MakeTable("c", 1000, 64, 3.0), MakeTable("d", 1000, 128)},
                             4, test::kGiB);
  absl::StatusOr<SearchSpace> space = Enumerate(task, 32);
  ASSERT_TRUE(space.ok()) << space.status();
  ASSERT_EQ(space->options_of_table.size(), 4u);
  EXPECT_THAT(ShardCounts(space->options_of_table[0]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[1]), ElementsAre(1));
  EXPECT_THAT(ShardCounts(space->options_of_table[2]), ElementsAre(1, 2));
  EXPECT_THAT(ShardCounts(space->options_of_table[3]), ElementsAre(1, 2, 4));

  space = Enumerate(task, 4);
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
  absl::StatusOr<SearchSpace> space = Enumerate(task, 16);
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

TEST(EnumerateTest, RefusesATableThatAllowsNeitherKind) {
  Task task = MakeTask({MakeTable("a", 1000, 64), MakeTable("rw", 1000, 64)}, 2, test::kGiB);
  task.tables[1].allowed_sharding_types = {ShardingType::kRowWise, ShardingType::kDataParallel};
  EXPECT_STATUS(Enumerate(task, 4), absl::StatusCode::kFailedPrecondition,
                "tables[1].allowed_sharding_types of table \"rw\" allows neither TABLE_WISE "
                "nor COLUMN_WISE");
}

// ---------------------------------------------------------------------------------------------
// Proposers, on a hand-built search space

ShardOption MakeShard(double perf, int64_t bytes) {
  ShardOption shard;
  shard.perf.fwd_compute = perf;
  shard.bytes = bytes;
  return shard;
}

ShardingOption Option(int table, ShardingType type, std::vector<ShardOption> shards) {
  return ShardingOption{.table = table, .sharding_type = type, .shards = std::move(shards)};
}

// Table 0: o0 = TW {perf 3, 100 B}, o1 = CW {1, 60 B} x 2 -> by score o1, o0 (depth 1 < 3,
// sum 2 < 3). Table 1: p0 = TW {1, 200 B}, p1 = CW {2, 20 B} + {0.5, 20 B} -> p0, p1.
SearchSpace TinySpace() {
  SearchSpace space;
  space.options_of_table = {
      {Option(0, ShardingType::kTableWise, {MakeShard(3, 100)}),
       Option(0, ShardingType::kColumnWise, {MakeShard(1, 60), MakeShard(1, 60)})},
      {Option(1, ShardingType::kTableWise, {MakeShard(1, 200)}),
       Option(1, ShardingType::kColumnWise, {MakeShard(2, 20), MakeShard(0.5, 20)})}};
  space.units = {
      PlacementUnit{.tables = {0}, .index = 0, .bytes = 100, .pinned_device = std::nullopt},
      PlacementUnit{.tables = {1}, .index = 1, .bytes = 200, .pinned_device = std::nullopt}};
  return space;
}

std::vector<Proposal> Drain(Proposer& proposer) {
  std::vector<Proposal> proposals;
  while (std::optional<Proposal> proposal = proposer.Propose()) proposals.push_back(*proposal);
  return proposals;
}

TEST(ProposerTest, OptionScoreIsTheSlowestShardWithDepthElseTheSum) {
  const SearchSpace space = TinySpace();
  EXPECT_DOUBLE_EQ(OptionScore(space.options_of_table[1][1], true), 2.0);
  EXPECT_DOUBLE_EQ(OptionScore(space.options_of_table[1][1], false), 2.5);
}

TEST(ProposerTest, GreedyAdvancesTheTableWithTheLargestStorage) {
  const SearchSpace space = TinySpace();
  std::unique_ptr<Proposer> greedy = MakeGreedyProposer(space, /*use_depth=*/true);
  EXPECT_EQ(greedy->MaxProposals(), 3);
  // Start (o1, p0). Storage (max, sum): o1 (60, 120) < p0 (200, 200): table 1 moves to p1.
  // Then only table 0 can move, to o0; then none can.
  EXPECT_THAT(Drain(*greedy), ElementsAre(Proposal{1, 0}, Proposal{1, 1}, Proposal{0, 1}));
}

TEST(ProposerTest, GreedyWithoutDepthScoresBySum) {
  SearchSpace space = TinySpace();
  // Table 1's CW sum (2.5) now exceeds TW's 2.2 although its slowest shard (2) does not.
  space.options_of_table[1][0].shards[0].perf.fwd_compute = 2.2;
  EXPECT_EQ(Drain(*MakeGreedyProposer(space, true)).front(), (Proposal{1, 1}));
  EXPECT_EQ(Drain(*MakeGreedyProposer(space, false)).front(), (Proposal{1, 0}));
}

TEST(ProposerTest, GreedyTiesGoToTheFirstTable) {
  SearchSpace space = TinySpace();
  // p0 and o1 both at (max 60, sum 60): a tie.
  space.options_of_table[1][0].shards[0].bytes = 60;
  space.options_of_table[0][1].shards[1].bytes = 0;
  EXPECT_THAT(Drain(*MakeGreedyProposer(space, true)),
              ElementsAre(Proposal{1, 0}, Proposal{0, 0}, Proposal{0, 1}));
}

TEST(ProposerTest, GridSearchIsTheProductLastTableFastest) {
  const SearchSpace space = TinySpace();
  std::unique_ptr<Proposer> grid = MakeGridSearchProposer(space);
  EXPECT_EQ(grid->MaxProposals(), 4);
  EXPECT_THAT(Drain(*grid),
              ElementsAre(Proposal{1, 0}, Proposal{1, 1}, Proposal{0, 0}, Proposal{0, 1}));
}

TEST(ProposerTest, GridSearchSkipsMoreThanTenThousandProposals) {
  SearchSpace space;
  // 2^14 = 16384 combinations.
  for (int t = 0; t < 14; ++t) {
    space.options_of_table.push_back({Option(t, ShardingType::kTableWise, {MakeShard(1, 1)}),
                                      Option(t, ShardingType::kColumnWise, {MakeShard(2, 1)})});
  }
  std::unique_ptr<Proposer> grid = MakeGridSearchProposer(space);
  EXPECT_EQ(grid->MaxProposals(), 0);
  EXPECT_EQ(grid->Propose(), std::nullopt);
}

TEST(ProposerTest, UniformProposesTheBestOptionOfEachSharedType) {
  SearchSpace space = TinySpace();
  space.options_of_table[0].push_back(Option(
      0, ShardingType::kColumnWise, {MakeShard(0.5, 30), MakeShard(0.5, 30), MakeShard(0.5, 30)}));
  EXPECT_THAT(Drain(*MakeUniformProposer(space)), ElementsAre(Proposal{0, 0}, Proposal{2, 1}));
  // A type some table lacks is not proposed.
  space.options_of_table[1].pop_back();
  EXPECT_THAT(Drain(*MakeUniformProposer(space)), ElementsAre(Proposal{0, 0}));
}

TEST(ProposerTest, DefaultsInTorchRecsOrder) {
  const SearchSpace space = TinySpace();
  std::vector<std::unique_ptr<Proposer>> proposers = DefaultProposers(space);
  ASSERT_EQ(proposers.size(), 4u);
  EXPECT_EQ(proposers[0]->name(), "grid_search");
  EXPECT_EQ(proposers[1]->name(), "greedy(use_depth)");
  EXPECT_EQ(proposers[2]->name(), "greedy(no depth)");
  EXPECT_EQ(proposers[3]->name(), "uniform");
}

// ---------------------------------------------------------------------------------------------
// Partitioner

// a 640 B (pooling 10: the slowest), b 480 B, c 320 B, each dim 4, table-wise.
Task ThreeTables(std::vector<int64_t> capacities) {
  return MakeTask({TableOfBytes("a", 640, 4, 10.0), TableOfBytes("b", 480, 4, 1.0),
                   TableOfBytes("c", 320, 4, 1.0)},
                  std::move(capacities));
}

TEST(GreedyPerfPartitionTest, LargestFirstOntoTheLowestPerfDeviceThatFits) {
  Task task = ThreeTables({1024, 1024});
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4);
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
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4);
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_EQ(GreedyPerfPartition(task, *space, {0, 0, 0}), std::nullopt);
}

TEST(GreedyPerfPartitionTest, ColumnShardsArePlacedOneByOne) {
  // 16 rows x 64 columns x 4 B = 4 KiB whole, 2 KiB a half.
  Task task = MakeTask({MakeTable("wide", 16, 64)}, 2, 3000);
  absl::StatusOr<SearchSpace> space = Enumerate(task, 32);
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
  absl::StatusOr<SearchSpace> space = Enumerate(task, 4);
  ASSERT_TRUE(space.ok()) << space.status();
  std::optional<Placement> placement = GreedyPerfPartition(task, *space, {0, 0, 0, 0});
  ASSERT_TRUE(placement.has_value());
  // p on 0 first; then b+c (800 B) before a (640 B): device 1 is the first with perf 0.
  EXPECT_THAT(placement->device_of_shard,
              ElementsAre(ElementsAre(2), ElementsAre(1), ElementsAre(1), ElementsAre(0)));
}

}  // namespace
}  // namespace shardplan::torchrec
