#include "planner/estimators/torchrec_shard_perf.h"

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/estimators/torchrec_worked_example.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using namespace torchrec_worked_example;

using test::MakeTable;
using test::MakeTask;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

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

TEST(EstimateShardPerfTest, MatchesTorchRecWorkedExample) {
  const ShardPerf perf = EstimateShardPerf(AnalyticParams{}, /*pooling_factor=*/10,
                                           /*table_bytes=*/4, /*columns=*/64,
                                           /*global_batch_size=*/2048, /*world_size=*/4,
                                           /*local_world_size=*/4, 600.0, 12.5);
  EXPECT_NEAR(perf.fwd_compute, kFwdCompute, kTolerance);
  EXPECT_NEAR(perf.fwd_comms, kFwdComms, kTolerance);
  EXPECT_NEAR(perf.bwd_compute, kBwdCompute, kTolerance);
  EXPECT_NEAR(perf.bwd_comms, kBwdComms, kTolerance);
  EXPECT_NEAR(perf.total(), kTotal, kTolerance);
}
TEST(EstimateShardPerfTest, CrossHostAllToAllUsesInterHostBandwidth) {
  const ShardPerf one_host = EstimateShardPerf(AnalyticParams{}, 10, 4, 64, 4096, 8, 8, 600, 12.5);
  const ShardPerf two_hosts =
      EstimateShardPerf(AnalyticParams{}, 10, 4, 64, 4096, 8, 4, 600, 12.5);
  EXPECT_NEAR(two_hosts.fwd_comms / one_host.fwd_comms, 600.0 / 12.5, 1e-9);
  EXPECT_DOUBLE_EQ(two_hosts.fwd_compute, one_host.fwd_compute);
}
TEST(EstimateShardPerfTest, BlockPenaltyByShardWidth) {
  // Same bytes moved per column apart from the penalty: compare per-column compute.
  auto compute_per_column = [](int32_t columns) {
    const ShardPerf p = EstimateShardPerf(AnalyticParams{}, 0, 4, columns, 1024, 1, 1, 600, 12.5);
    return p.fwd_compute / columns;
  };
  EXPECT_NEAR(compute_per_column(64) / compute_per_column(128), 1.15, 1e-12);
  EXPECT_NEAR(compute_per_column(32) / compute_per_column(128), 1.75, 1e-12);
}

}  // namespace
}  // namespace shardplan
