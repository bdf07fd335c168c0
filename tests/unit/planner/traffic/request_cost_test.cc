#include "planner/traffic/request_cost.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

RowShardMap EightShards() {
  RowShardMap map = *RowShardMap::Create({{.name = "t", .rows = 16, .row_bytes = 64}}, 8);
  for (int64_t row = 0; row < 16; ++row) map.Assign(PackRowKey(0, row), row % 8);
  return map;
}

TEST(RequestCostTest, OneShardCostsOneLookupKernel) {
  const RowShardMap map = EightShards();
  const RequestLatencyModel model = A100NvlinkHostLatencyModel();
  RequestCostScratch scratch;
  const std::vector<uint64_t> local = {PackRowKey(0, 0), PackRowKey(0, 8)};  // both on shard 0
  const RequestCost cost = CostOfRequest(map, local, model, scratch);
  EXPECT_EQ(cost.fan_out, 1);
  EXPECT_DOUBLE_EQ(cost.latency_us,
                   model.lookup_launch_us +
                       2 * (64 + model.random_access_overhead_bytes) * 1e-3 / model.hbm_gbps);
}

TEST(RequestCostTest, RemoteShardsAddAFetchAndAnIssueEach) {
  const RowShardMap map = EightShards();
  const RequestLatencyModel model = A100NvlinkHostLatencyModel();
  RequestCostScratch scratch;
  // Home is shard 1 (two lookups); shards 2 and 3 are remote, one lookup each.
  const std::vector<uint64_t> keys = {PackRowKey(0, 1), PackRowKey(0, 9), PackRowKey(0, 2),
                                      PackRowKey(0, 3)};
  const RequestCost cost = CostOfRequest(map, keys, model, scratch);
  EXPECT_EQ(cost.fan_out, 3);
  const double remote = model.lookup_launch_us +
                        (64 + model.random_access_overhead_bytes) * 1e-3 / model.hbm_gbps +
                        model.fetch_latency_us + 64 * 1e-3 / model.link_gbps;
  EXPECT_DOUBLE_EQ(cost.latency_us, remote + 2 * model.remote_issue_us);
  // Fewer shards, less latency: the same lookups on two shards.
  const std::vector<uint64_t> fewer = {PackRowKey(0, 1), PackRowKey(0, 9), PackRowKey(0, 2),
                                       PackRowKey(0, 10)};
  EXPECT_LT(CostOfRequest(map, fewer, model, scratch).latency_us, cost.latency_us);
}

TEST(RequestCostTest, UnplacedRowsAreServedFromTheirHashShard) {
  RowShardMap map = EightShards();
  map.Assign(PackRowKey(0, 5), kUnassignedShard);
  const ShardId shard = ServingShard(map, PackRowKey(0, 5));
  EXPECT_LT(shard, 8);
  EXPECT_EQ(shard, ServingShard(map, PackRowKey(0, 5)));
}

TEST(RequestCostTest, WindowReportsMeanAndP99AndRefusesForeignKeys) {
  const RowShardMap map = EightShards();
  RequestBatch window;
  for (int i = 0; i < 99; ++i) window.Add(std::vector<uint64_t>{PackRowKey(0, 0)});
  window.Add(std::vector<uint64_t>{PackRowKey(0, 0), PackRowKey(0, 1), PackRowKey(0, 2)});
  const absl::StatusOr<WindowCost> cost = CostOfWindow(map, window, A100NvlinkHostLatencyModel());
  ASSERT_TRUE(cost.ok()) << cost.status();
  EXPECT_EQ(cost->requests, 100);
  EXPECT_DOUBLE_EQ(cost->mean_fan_out, (99 + 3) / 100.0);
  EXPECT_GT(cost->p99_fan_out, 1.0);
  EXPECT_GT(cost->p99_latency_us, cost->mean_latency_us);
  window.Add(std::vector<uint64_t>{PackRowKey(0, 16)});
  EXPECT_THAT(CostOfWindow(map, window, A100NvlinkHostLatencyModel()).status().message(),
              HasSubstr("requests[100]"));
}

}  // namespace
}  // namespace shardplan
