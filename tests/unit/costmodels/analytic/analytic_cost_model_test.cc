#include "costmodels/analytic/analytic_cost_model.h"

#include <vector>

#include "gtest/gtest.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "tests/unit/planner/estimators/torchrec_worked_example.h"

namespace shardplan {
namespace {

using namespace torchrec_worked_example;

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

TEST_F(AnalyticCostModelTest, InferenceIsTheForwardPassOnly) {
  task_.objective = Objective::kInference;
  const std::vector<ShardView> one = {{&table_, table_.rows, 64}};
  EXPECT_NEAR(model_.ComputeCost(CostContext::For(task_), one), kFwdCompute, kTolerance);
}

TEST_F(AnalyticCostModelTest, ASequenceTableWritesLTimesTheOutputs) {
  // The output write is 1/L of a pooled table's lookups' bytes here; a sequence table's is L
  // times a pooled one's.
  const CostContext context = CostContext::For(task_);
  const std::vector<ShardView> pooled = {{&table_, table_.rows, 64}};
  const double pooled_ms = model_.ComputeCost(context, pooled);
  Table sequence = table_;
  sequence.pooling = Pooling::kSequence;
  const std::vector<ShardView> whole = {{&sequence, sequence.rows, 64}};
  const AnalyticParams params;
  const double extra_bytes = 2048.0 * 64 * 4 * (10 - 1);  // (L - 1) more outputs per sample
  const double bytes_per_ms = params.hbm_bandwidth_gibps * kBytesPerGiB / 1000.0;
  // 64 columns: TorchRec's half-block penalty on every byte the kernel moves.
  EXPECT_NEAR(model_.ComputeCost(context, whole) - pooled_ms,
              extra_bytes / bytes_per_ms * params.half_block_penalty *
                  (1 + params.bwd_compute_multiplier),
              1e-12);
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

TEST_F(AnalyticCostModelTest, EvaluatesRowWisePlansAsTorchRecRatesThem) {
  // TorchRec's per-shard RW perf for W = L = 4, per-rank batch 512, pooling factor 10, dim 64
  // (tests/oracles/torchrec_estimator_oracle.py, case w4_l4 rw): every device holds one shard.
  task_.tables = {table_};
  Plan plan;
  plan.tables.push_back(TableSharding{.table = "t", .sharding_type = ShardingType::kRowWise});
  for (int d = 0; d < 4; ++d) plan.tables[0].shards.push_back(Shard{d, 250 * d, 250, 0, 64});
  ASSERT_TRUE(model_.CostsShardingType(ShardingType::kRowWise));
  ASSERT_TRUE(EvaluatePlan(task_, model_, plan).ok());
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(plan.devices[d].compute_ms, 1.947749551456e-03 + 3.895499102912e-03, 1e-12);
    EXPECT_NEAR(plan.devices[d].forward_comm_ms, 8.138020833333e-04, 1e-12);
    EXPECT_NEAR(plan.devices[d].backward_comm_ms, 2.150179417503e-03, 1e-12);
  }
}

TEST_F(AnalyticCostModelTest, DataParallelReplicasPayTheAllReduceAndOptimizer) {
  // Case w4_l4 dp of the oracle: each replica's backward comms are the all-reduce plus the
  // element-wise optimizer kernels.
  task_.tables = {table_};
  Plan plan;
  plan.tables.push_back(TableSharding{.table = "t", .sharding_type = ShardingType::kDataParallel});
  for (int d = 0; d < 4; ++d) plan.tables[0].shards.push_back(Shard{d, 0, 1000, 0, 64});
  ASSERT_TRUE(EvaluatePlan(task_, model_, plan).ok());
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(plan.devices[d].compute_ms, 1.539487636741e-03 + 3.078975273481e-03, 1e-12);
    EXPECT_EQ(plan.devices[d].forward_comm_ms, 0.0);
    EXPECT_NEAR(plan.devices[d].backward_comm_ms, 7.219006252395e-03, 1e-12);
    EXPECT_EQ(plan.devices[d].memory_bytes, 1000 * 64 * 4);
  }
}

TEST_F(AnalyticCostModelTest, IdNamesTheVersion) {
  EXPECT_EQ(model_.id(), "analytic@1");
  EXPECT_EQ(AnalyticCostModel(AnalyticParams{}, "7").id(), "analytic@7");
  EXPECT_TRUE(model_.CheckSupports(task_).ok());
}

}  // namespace
}  // namespace shardplan

namespace shardplan {
namespace {

// analytic@1 costs routed layouts: a data-parallel table on two of four devices sends the other
// two their outputs, each sender paying its bytes over the link; replicas serve their routed
// requesters' lookups.
TEST(AnalyticRoutedLayoutTest, ADataParallelSubsetPaysItsRoutedOutputs) {
  Task task;
  Table table;
  table.name = "t";
  table.rows = 1000;
  table.dim = 16;
  table.pooling_factor = 2.0;
  task.tables = {table};
  task.topology.memory_bytes.assign(4, int64_t{1} << 30);
  task.topology.devices_per_host = 2;
  task.batch_size = 400;
  Plan plan = TableWisePlan(task, {0});
  plan.tables[0].sharding_type = ShardingType::kDataParallel;
  plan.tables[0].shards = {Shard{0, 0, 1000, 0, 16}, Shard{2, 0, 1000, 0, 16}};
  const AnalyticCostModel model;
  ASSERT_TRUE(model.CostsRowLayouts());
  const absl::Status evaluated = EvaluatePlan(task, model, plan);
  ASSERT_TRUE(evaluated.ok()) << evaluated;
  // Devices 0 and 2 send 100 samples x 16 x 4 bytes to 1 and 3 in their hosts, forward.
  const double intra_bytes_per_ms = task.topology.intra_host_bandwidth_gibps * 1073741824.0 / 1000;
  const double sent_ms = 100.0 * 16 * 4 / intra_bytes_per_ms;
  EXPECT_NEAR(plan.devices[0].forward_comm_ms, sent_ms, 1e-12);
  EXPECT_DOUBLE_EQ(plan.devices[1].forward_comm_ms, 0.0);
  EXPECT_NEAR(plan.devices[1].backward_comm_ms, sent_ms, 1e-12);  // gradients back, no all-reduce
  EXPECT_GT(plan.devices[0].backward_comm_ms, sent_ms);  // the replicas all-reduce
  EXPECT_GT(plan.devices[0].compute_ms, plan.devices[1].compute_ms);  // 1 holds nothing
}

}  // namespace
}  // namespace shardplan
