// RW, TWRW and DP shards costed through the sharding-semantics layer (DescribePlacement's shard
// views and collectives) against TorchRec's own estimator code: the numbers below are printed by
//   python3 tests/oracles/torchrec_estimator_oracle.py --torchrec <torchrec checkout a48cef79>
// which runs _get_{rw,twrw,dp}_sharding_perf and BasicCommsBandwidths unchanged.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/estimators/torchrec_shard_perf.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;
using test::MakeTask;

struct OracleCase {
  std::string name;
  int world;
  int local;
  int64_t per_rank_batch;
  double pooling_factor;
  int32_t dim;
  int64_t rows;
  ShardingType type;
  ShardPerf expected;  // TorchRec's per-shard perf
};

std::vector<OracleCase> Cases() {
  using T = ShardingType;
  return {
      {"w4_l4_rw", 4, 4, 512, 10.0, 64, 1000, T::kRowWise,
       {1.947749551456e-03, 8.138020833333e-04, 3.895499102912e-03, 2.150179417503e-03}},
      {"w4_l4_twrw", 4, 4, 512, 10.0, 64, 1000, T::kTableRowWise,
       {1.947749551456e-03, 8.138020833333e-04, 3.895499102912e-03, 2.150179417503e-03}},
      {"w4_l4_dp", 4, 4, 512, 10.0, 64, 1000, T::kDataParallel,
       {1.539487636741e-03, 0.0, 3.078975273481e-03, 7.219006252395e-03}},
      {"w16_l8_rw", 16, 8, 512, 10.0, 64, 1000, T::kRowWise,
       {3.580797210319e-03, 1.562500000000e-01, 7.161594420638e-03, 1.615955093367e-01}},
      {"w16_l8_twrw", 16, 8, 512, 10.0, 64, 1000, T::kTableRowWise,
       {4.984197542154e-03, 2.278645833333e-02, 9.968395084309e-03, 2.813196767001e-02}},
      {"w16_l8_dp", 16, 8, 512, 10.0, 64, 1000, T::kDataParallel,
       {1.539487636741e-03, 0.0, 3.078975273481e-03, 6.026913356887e-03}},
      {"w32_l8_rw", 32, 8, 256, 3.5, 128, 250000, T::kRowWise,
       {4.838541598623e-03, 3.125000000000e-01, 9.677083197246e-03, 3.231910186734e-01}},
      {"w32_l8_twrw", 32, 8, 256, 3.5, 128, 250000, T::kTableRowWise,
       {6.289785123589e-03, 4.557291666667e-02, 1.257957024718e-02, 5.626393534002e-02}},
      {"w32_l8_dp", 32, 8, 256, 3.5, 128, 250000, T::kDataParallel,
       {6.198351465606e-04, 0.0, 1.239670293121e-03, 4.801596021705e+00}},
  };
}

// TorchRec's shards of `type`: RW over every rank, TWRW over host 0's ranks, DP on every rank;
// rows in blocks of ceil(rows / shards), the last one shorter.
TableSharding TorchRecSharding(const Table& table, ShardingType type, int world, int local) {
  TableSharding sharding{.table = table.name, .sharding_type = type, .shards = {}};
  const int shards = type == ShardingType::kTableRowWise ? local : world;
  const int64_t block = (table.rows + shards - 1) / shards;
  for (int s = 0; s < shards; ++s) {
    Shard shard{.device = s, .row_offset = 0, .row_count = table.rows, .column_offset = 0,
                .column_count = table.dim};
    if (type != ShardingType::kDataParallel) {
      shard.row_offset = std::min<int64_t>(table.rows, s * block);
      shard.row_count = std::min<int64_t>(table.rows, shard.row_offset + block) - shard.row_offset;
    }
    sharding.shards.push_back(shard);
  }
  return sharding;
}

void ExpectRelative(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1e-12, std::abs(expected))) << what;
}

TEST(RowLevelPerfTest, MatchesTorchRecEstimatorPerShard) {
  for (const OracleCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Task task = MakeTask({MakeTable("t", c.rows, c.dim, c.pooling_factor)}, c.world, test::kGiB);
    task.topology.devices_per_host = c.local;
    task.batch_size = c.per_rank_batch * c.world;
    Plan plan;
    plan.tables.push_back(TorchRecSharding(task.tables[0], c.type, c.world, c.local));
    absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
    ASSERT_TRUE(queries.ok()) << queries.status();
    EXPECT_EQ(queries->dim_sums, std::vector<int64_t>(c.world, 0));  // no pooled all-to-all

    for (const Shard& shard : plan.tables[0].shards) {
      const int d = shard.device;
      ASSERT_EQ(queries->shards_per_device[d].size(), 1u);
      const ShardPerf compute = EstimateRowLevelCompute(
          AnalyticParams{}, queries->shards_per_device[d][0], task.batch_size, task.topology);
      double fwd_comms = 0.0;
      double bwd_comms = 0.0;
      for (const CollectiveDemand& demand : queries->collectives) {
        for (int32_t device : demand.devices) {
          if (device != d) continue;
          const double ms = CollectiveMs(AnalyticParams{}, demand, task.topology);
          (demand.pass == Pass::kForward ? fwd_comms : bwd_comms) += ms;
        }
      }
      const std::string where = "device " + std::to_string(d);
      ExpectRelative(compute.fwd_compute, c.expected.fwd_compute, where + " fwd_compute");
      ExpectRelative(compute.bwd_compute, c.expected.bwd_compute, where + " bwd_compute");
      ExpectRelative(fwd_comms, c.expected.fwd_comms, where + " fwd_comms");
      ExpectRelative(bwd_comms, c.expected.bwd_comms, where + " bwd_comms");
    }
  }
}

TEST(RowLevelPerfTest, NotesWorkedExampleForRowWise) {
  // TorchRec's EmbeddingPerfEstimator (shard_estimators.py, snapshot a48cef79) on this table
  // as 4 ROW_WISE shards, worked by hand from its formulas (the project's shared notes on the
  // reference code, section 4.8): per shard fwd_compute = 0.0019477496 ms and
  // bwd_comms = 0.0021501794 ms.
  Task task = MakeTask({MakeTable("t", 1000, 64, 10.0)}, 4, test::kGiB);
  task.topology.devices_per_host = 4;
  task.batch_size = 4 * 512;
  const ShardView shard{.table = &task.tables[0], .rows = 250, .columns = 64,
                        .sharding = ShardingType::kRowWise, .group_size = 4};
  EXPECT_NEAR(EstimateRowLevelCompute(AnalyticParams{}, shard, task.batch_size, task.topology)
                  .fwd_compute,
              0.0019477496, 1e-9);
  const std::vector<CollectiveDemand> demands =
      TableCollectives(task.tables[0], TorchRecSharding(task.tables[0], ShardingType::kRowWise, 4, 4),
                       task.topology, task.batch_size);
  double bwd_comms = 0.0;
  for (const CollectiveDemand& demand : demands) {
    if (demand.pass == Pass::kBackward) bwd_comms += CollectiveMs(AnalyticParams{}, demand, task.topology);
  }
  EXPECT_NEAR(bwd_comms, 0.0021501794, 1e-9);
}

TEST(RowLevelPerfTest, AllReduceBandwidthOfTheTaskReplacesTorchRecsDefault) {
  Task task = MakeTask({MakeTable("t", 1000, 64, 10.0)}, 16, test::kGiB);
  task.topology.devices_per_host = 8;
  const CollectiveDemand demand = TableCollectives(
      task.tables[0], TorchRecSharding(task.tables[0], ShardingType::kDataParallel, 16, 8),
      task.topology, task.batch_size)[0];
  const double by_default = CollectiveMs(AnalyticParams{}, demand, task.topology);
  task.topology.all_reduce_bandwidth_gibps = 2 * task.topology.all_reduce_bandwidth();
  const double doubled = CollectiveMs(AnalyticParams{}, demand, task.topology);
  const double optimizer = 1000.0 * 64 * 4 * 9.22 / (897.0 * test::kGiB / 1000.0);
  EXPECT_NEAR((by_default - optimizer) / (doubled - optimizer), 2.0, 1e-9);
}

}  // namespace
}  // namespace shardplan
