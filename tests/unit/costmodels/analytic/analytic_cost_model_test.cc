#include "costmodels/analytic/analytic_cost_model.h"

#include <vector>

#include "gtest/gtest.h"
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
