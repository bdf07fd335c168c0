#include "lab/training/compute_objective.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/comm_objective.h"
#include "tests/unit/lab/training/gradient_check.h"
#include "tests/unit/lab/training/training_test_data.h"

namespace shardplan::training {
namespace {

TEST(ComputeObjectiveTest, GradientThroughTheSetSumMatchesFiniteDifferences) {
  const ToySets sets = MakeToySets(6, 5, 11);
  ComputeObjective objective(sets.features, sets.row_offsets, sets.labels,
                             MlpShape({5, 8, 6}, true), MlpShape({6, 7, 1}, false));
  ExpectGradientMatchesFiniteDifferences(objective, {0, 2, 3, 5}, 1);
}

TEST(ComputeObjectiveTest, PredictionIsPermutationInvariantOverRows) {
  ToySets sets = MakeToySets(1, 5, 4);
  // Make the only sample hold exactly two rows, then swap them.
  sets.features.resize(10);
  sets.row_offsets = {0, 2};
  ToySets swapped = sets;
  std::rotate(swapped.features.begin(), swapped.features.begin() + 5, swapped.features.end());
  const MlpShape table({5, 8, 6}, true);
  const MlpShape pred({6, 7, 1}, false);
  ComputeObjective a(sets.features, sets.row_offsets, sets.labels, table, pred);
  ComputeObjective b(swapped.features, swapped.row_offsets, swapped.labels, table, pred);
  std::mt19937_64 rng(2);
  std::vector<float> params(a.num_params());
  a.InitParams(rng, params);
  a.Prepare(params);
  b.Prepare(params);
  float pa = 0.0f;
  float pb = 0.0f;
  auto wa = a.NewWorkspace();
  auto wb = b.NewWorkspace();
  a.Predict(params, std::vector<int64_t>{0}, &pa, *wa);
  b.Predict(params, std::vector<int64_t>{0}, &pb, *wb);
  EXPECT_NEAR(pa, pb, 1e-6);
}

TEST(ComputeObjectiveTest, RelativeWeightsAreInverseSquaredLabelsWithMeanOne) {
  const std::vector<float> labels = {0.5f, 1.0f, 2.0f, 0.01f};  // 0.01 sits below the floor
  const std::vector<float> w = RelativeLossWeights(labels, 0.1);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_NEAR((w[0] + w[1] + w[2] + w[3]) / 4.0, 1.0, 1e-6);
  EXPECT_NEAR(w[0] / w[1], 4.0, 1e-5);  // (1 / 0.5)^2 against (1 / 1)^2
  EXPECT_NEAR(w[1] / w[2], 4.0, 1e-5);
  EXPECT_NEAR(w[3] / w[1], 100.0, 1e-3);  // floored at 0.1 ms, not 10^4
}

// The weights scale each sample's share of the gradient and nothing else: the returned squared
// errors (reported MSEs, early stopping) stay plain.
TEST(ComputeObjectiveTest, GradientWeightsScaleEachSamplesGradientOnly) {
  const ToySets sets = MakeToySets(4, 5, 9);
  const MlpShape table({5, 8, 6}, true);
  const MlpShape pred({6, 7, 1}, false);
  const std::vector<float> weights = {3.0f, 0.5f, 1.0f, 2.0f};
  ComputeObjective plain(sets.features, sets.row_offsets, sets.labels, table, pred);
  ComputeObjective weighted(sets.features, sets.row_offsets, sets.labels, table, pred, weights);
  std::mt19937_64 rng(5);
  std::vector<float> params(plain.num_params());
  plain.InitParams(rng, params);
  plain.Prepare(params);
  weighted.Prepare(params);
  auto wp = plain.NewWorkspace();
  auto ww = weighted.NewWorkspace();
  std::vector<float> sum_of_scaled(params.size(), 0.0f);
  for (int64_t sample = 0; sample < 4; ++sample) {
    std::vector<float> one(params.size(), 0.0f);
    plain.AddGradient(params, std::vector<int64_t>{sample}, weights[sample], one, *wp);
    for (size_t i = 0; i < one.size(); ++i) sum_of_scaled[i] += one[i];
  }
  std::vector<float> grad(params.size(), 0.0f);
  const double sse =
      weighted.AddGradient(params, std::vector<int64_t>{0, 1, 2, 3}, 1.0f, grad, *ww);
  std::vector<float> unused(params.size(), 0.0f);
  EXPECT_DOUBLE_EQ(sse,
                   plain.AddGradient(params, std::vector<int64_t>{0, 1, 2, 3}, 1.0f, unused, *wp));
  for (size_t i = 0; i < grad.size(); ++i) {
    EXPECT_NEAR(grad[i], sum_of_scaled[i], 1e-4 * (1.0 + std::abs(sum_of_scaled[i]))) << i;
  }
}

}  // namespace
}  // namespace shardplan::training
