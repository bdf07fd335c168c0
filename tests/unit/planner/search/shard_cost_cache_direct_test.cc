// ShardCostCache on a big task under a sum-pooled (neural) compute model: every device set is
// costed directly, without a map, and the values are the ones the map path gives.
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "planner/search/shard_cost_cache.h"
#include "tests/unit/costmodels/artifacts/bundle_test_util.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

// `tables` tables of `dim` columns on `devices` devices, with histograms.
Task TaskOf(int tables, int devices) {
  std::vector<Table> list;
  for (int t = 0; t < tables; ++t) {
    Table table = test::MakeTable(absl::StrCat("t", t), 1000 + 97 * t, 32);
    table.pooling_factor = 1.0 + t % 13;
    table.access_bins.assign(kNumAccessBins, 0.0);
    table.access_bins[t % kNumAccessBins] = 1.0;
    list.push_back(table);
  }
  return test::MakeTask(list, devices, 64 * test::kGiB);
}

// The sets a greedy grows: device d gets tables d, d + devices, ...; each growth is costed.
std::vector<double> GrowAndCost(const ShardCostCache& cache, const Task& task, int devices) {
  std::vector<DeviceShards> sets(devices);
  std::vector<double> costs;
  const CostContext context = CostContext::For(task);
  for (size_t t = 0; t < task.tables.size(); ++t) {
    DeviceShards& set = sets[t % devices];
    const Table& table = task.tables[t];
    set.Add(cache, ShardView{.table = &table, .rows = table.rows, .columns = table.dim});
    costs.push_back(cache.ComputeCost(context, set));
    costs.push_back(cache.ComputeCost(context, set.shards()));  // the span path, same set
  }
  return costs;
}

TEST(ShardCostCacheDirectTest, BigTasksCostSetsDirectlyWithTheSameValues) {
  const NeuralCostModel model = testing_bundle::RandomModel("neuro", "1", {});
  ASSERT_NE(model.sum_pooled_compute(), nullptr);
  // 250 tables on 16 devices (tables x devices = 4000): direct; 60 on 4: the map.
  const Task big = TaskOf(250, 16);
  const Task small = TaskOf(60, 4);
  const ShardCostCache direct(model, big, /*enabled=*/true);
  const std::vector<double> direct_costs = GrowAndCost(direct, big, 16);
  EXPECT_EQ(direct.hits(), 0);
  EXPECT_EQ(direct.misses(), 500);  // every query calls the model, none is kept

  // The model's own cost of each grown set, summed from scratch: the same value.
  const CostContext context = CostContext::For(big);
  std::vector<std::vector<ShardView>> sets(16);
  for (size_t t = 0; t < big.tables.size(); ++t) {
    const Table& table = big.tables[t];
    sets[t % 16].push_back(ShardView{.table = &table, .rows = table.rows, .columns = table.dim});
    const double expected = model.ComputeCost(context, sets[t % 16]);
    EXPECT_FLOAT_EQ(direct_costs[2 * t], expected) << t;
    EXPECT_FLOAT_EQ(direct_costs[2 * t + 1], expected) << t;
  }

  const ShardCostCache mapped(model, small, /*enabled=*/true);
  GrowAndCost(mapped, small, 4);
  EXPECT_EQ(mapped.misses(), 60);  // each grown set once; its span query hits
  EXPECT_EQ(mapped.hits(), 60);
}

}  // namespace
}  // namespace shardplan
