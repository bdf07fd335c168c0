#include "costmodels/analytic_cost_model.h"

#include <vector>

#include "gtest/gtest.h"
#include "planner/task.h"

namespace shardplan {
namespace {

// TorchRec's formulas worked by hand (docs/cost-models.md, "Batch"): TW, cuda fused, fp32,
// W = L = 4, per-rank batch 512 (global 2048), pooling factor 10, dim 64, unweighted, pooled.
constexpr double kFwdCompute = 0.0070816431;
constexpr double kFwdComms = 0.0008138021;
constexpr double kBwdCompute = 0.0141632863;
constexpr double kBwdComms = 0.0008138021;
constexpr double kTotal = 0.0228725336;
constexpr double kTolerance = 1e-9;

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

class AnalyticCostModelTest : public ::testing::Test {
 protected:
  AnalyticCostModelTest() {
    task_.topology.memory_bytes.assign(4, int64_t{16} << 30);
    task_.batch_size = 2048;
    table_.name = "t";
    table_.rows = 1000;
    table_.dim = 64;
    table_.pooling_factor = 10;
  }
  Task task_;
  Table table_;
  AnalyticCostModel model_;
};

TEST_F(AnalyticCostModelTest, ComputeIsForwardPlusBackwardSummedOverShards) {
  const CostContext context = CostContext::For(task_);
  const std::vector<ShardView> one = {{&table_, table_.rows, 64}};
  EXPECT_NEAR(model_.ComputeCost(context, one), kFwdCompute + kBwdCompute, kTolerance);
  const std::vector<ShardView> two = {{&table_, table_.rows, 64}, {&table_, table_.rows, 64}};
  EXPECT_NEAR(model_.ComputeCost(context, two), 2 * (kFwdCompute + kBwdCompute), kTolerance);
  EXPECT_EQ(model_.ComputeCost(context, {}), 0.0);
}

TEST_F(AnalyticCostModelTest, CommCostsFollowDimSumsAndIgnoreWaits) {
  const CostContext context = CostContext::For(task_);
  const std::vector<int64_t> dim_sums = {64, 128, 0, 32};
  const std::vector<double> bw = model_.BackwardCommCosts(context, dim_sums);
  ASSERT_EQ(bw.size(), 4u);
  EXPECT_NEAR(bw[0], kBwdComms, kTolerance);
  EXPECT_NEAR(bw[1], 2 * kBwdComms, kTolerance);
  EXPECT_EQ(bw[2], 0.0);
  EXPECT_NEAR(bw[3], kBwdComms / 2, kTolerance);
  const std::vector<double> waits = {0.0, 5.0, 1.0, 2.0};
  EXPECT_EQ(model_.ForwardCommCosts(context, dim_sums, waits), bw);
}

TEST_F(AnalyticCostModelTest, ColumnHalvesCostMoreThanTheWholeTable) {
  // Each half reads every input again and pays the narrower block penalty (Observation 1).
  const CostContext context = CostContext::For(task_);
  table_.dim = 128;
  const std::vector<ShardView> whole = {{&table_, table_.rows, 128}};
  const std::vector<ShardView> half = {{&table_, table_.rows, 64}};
  EXPECT_GT(2 * model_.ComputeCost(context, half), model_.ComputeCost(context, whole));
}

TEST_F(AnalyticCostModelTest, SmallerElementsCostLessToLookUp) {
  const CostContext context = CostContext::For(task_);
  Table half_precision = table_;
  half_precision.element_type = ElementType::kFp16;
  const std::vector<ShardView> fp32 = {{&table_, table_.rows, 64}};
  const std::vector<ShardView> fp16 = {{&half_precision, table_.rows, 64}};
  EXPECT_LT(model_.ComputeCost(context, fp16), model_.ComputeCost(context, fp32));
}

TEST_F(AnalyticCostModelTest, IdNamesTheVersion) {
  EXPECT_EQ(model_.id(), "analytic@1");
  EXPECT_EQ(AnalyticCostModel(AnalyticParams{}, "7").id(), "analytic@7");
  EXPECT_TRUE(model_.CheckSupports(task_).ok());
}

}  // namespace
}  // namespace shardplan
