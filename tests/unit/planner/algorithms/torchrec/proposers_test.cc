#include "planner/algorithms/torchrec/proposers.h"

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::torchrec {
namespace {

using test::MakeTable;
using test::MakeTask;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

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

}  // namespace
}  // namespace shardplan::torchrec
