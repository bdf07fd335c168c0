#include "planner/algorithms/alis/iterative_partition.h"

#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/planner/algorithms/alis/alis_test_util.h"

namespace shardplan::alis {
namespace {

using test::Row;
using test::WindowOf;

// Four planted groups of six rows, requested together, start scattered round robin.
CooccurrenceStats FourGroups() {
  std::vector<std::vector<uint64_t>> requests;
  for (int g = 0; g < 4; ++g) {
    std::vector<uint64_t> request;
    for (int k = 0; k < 6; ++k) request.push_back(Row(g * 6 + k));
    requests.push_back(request);
  }
  return WindowOf(requests, 5);
}

TEST(IterativePartitionTest, GathersPlantedGroupsOntoOneShardEach) {
  const CooccurrenceStats window = FourGroups();
  std::vector<ShardId> initial(window.rows.size());
  for (size_t lid = 0; lid < initial.size(); ++lid) initial[lid] = lid % 4;
  const std::vector<int64_t> loads(window.rows.size(), 1);
  const PartitionResult result = IterativePartition(
      window, initial, loads, {.shards = 4, .max_iterations = 20, .imbalance = 0.0, .seed = 1});
  for (int g = 0; g < 4; ++g) {
    for (int k = 1; k < 6; ++k) {
      EXPECT_EQ(result.shard_of[g * 6 + k], result.shard_of[g * 6]) << "group " << g;
    }
  }
  EXPECT_GT(result.moves, 0);
  EXPECT_LE(result.iterations, 20);
}

TEST(IterativePartitionTest, TheCapHoldsEvenWhenEverythingWantsOneShard) {
  // One group of 12 rows cannot fit one of 3 shards under the cap.
  std::vector<uint64_t> request;
  for (int k = 0; k < 12; ++k) request.push_back(Row(k));
  const CooccurrenceStats window = WindowOf({request}, 3);
  const std::vector<ShardId> initial(12, 0);  // all on shard 0: over the cap from the start
  const std::vector<int64_t> loads(12, 1);
  const int64_t cap = BalanceCap(loads, 3, 0.1);
  EXPECT_EQ(cap, 5 + 1);  // ceil(1.1 x 12 / 3) + the largest row
  const PartitionResult result =
      IterativePartition(window, initial, loads, {.shards = 3, .imbalance = 0.1, .seed = 2});
  std::vector<int64_t> per_shard(3, 0);
  for (ShardId shard : result.shard_of) ++per_shard[shard];
  for (int64_t load : per_shard) EXPECT_LE(load, cap);
  EXPECT_GT(result.repair_moves, 0);
}

TEST(IterativePartitionTest, SameSeedSameResult) {
  const CooccurrenceStats window = FourGroups();
  std::vector<ShardId> initial(window.rows.size());
  for (size_t lid = 0; lid < initial.size(); ++lid) initial[lid] = (lid * 7) % 4;
  const std::vector<int64_t> loads(window.rows.size(), 1);
  const PartitionOptions options{.shards = 4, .seed = 9};
  EXPECT_EQ(IterativePartition(window, initial, loads, options).shard_of,
            IterativePartition(window, initial, loads, options).shard_of);
}

}  // namespace
}  // namespace shardplan::alis
