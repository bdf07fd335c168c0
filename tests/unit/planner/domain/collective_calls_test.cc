#include "planner/domain/collective_calls.h"

#include <vector>

#include "gtest/gtest.h"
#include "planner/domain/sharding_semantics.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::EvenShards;
using test::MakeTable;
using test::MakeTask;

TEST(FuseCollectiveCallsTest, FusesTheSameCollectivePassAndPeerSet) {
  const Table a = MakeTable("a", 800, 16, 2);
  const Table b = MakeTable("b", 800, 32, 2);
  const Topology topology = MakeTask({}, 4, int64_t{1} << 34).topology;
  std::vector<CollectiveDemand> demands = TableCollectives(
      a, EvenShards(ShardingType::kRowWise, {0, 1, 2, 3}, 800, 16), topology, 1024);
  for (CollectiveDemand& d : TableCollectives(
           b, EvenShards(ShardingType::kRowWise, {3, 2, 1, 0}, 800, 32), topology, 1024)) {
    demands.push_back(d);
  }
  const std::vector<CollectiveCall> calls = FuseCollectiveCalls(demands);
  ASSERT_EQ(calls.size(), 2u);  // one reduce-scatter (forward), one all-gather (backward)
  EXPECT_EQ(calls[0].collective, Collective::kReduceScatter);
  EXPECT_EQ(calls[1].collective, Collective::kAllGather);
  EXPECT_EQ(calls[0].peers, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(calls[0].ring_bytes, 1024.0 * (16 + 32) * 4);
  EXPECT_DOUBLE_EQ(calls[0].volume[2], 1024.0 * (16 + 32) * 4);
  EXPECT_DOUBLE_EQ(calls[0].replica_bytes[2], 0.0);
}

TEST(FuseCollectiveCallsTest, DataParallelReplicasBookTheirBytesAsReplicaBytes) {
  const Table t = MakeTable("t", 100, 8, 1);
  const Topology topology = MakeTask({}, 2, int64_t{1} << 34).topology;
  const std::vector<CollectiveCall> calls = FuseCollectiveCalls(
      TableCollectives(t, EvenShards(ShardingType::kDataParallel, {1, 0}, 100, 8), topology, 64));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].collective, Collective::kAllReduce);
  EXPECT_EQ(calls[0].peers, (std::vector<int32_t>{0, 1}));
  EXPECT_GT(calls[0].replica_bytes[0], 0.0);
  EXPECT_DOUBLE_EQ(calls[0].replica_bytes[0], calls[0].volume[0]);
  EXPECT_DOUBLE_EQ(calls[0].replica_bytes[1], calls[0].volume[1]);
}

}  // namespace
}  // namespace shardplan
