// Gradients of the DeepSets compute objective (through the per-sample sum) and of the comm
// objective, against finite differences of the sum of squared errors.
#include <cmath>
#include <random>
#include <vector>

#include "costmodels/training/comm_objective.h"
#include "costmodels/training/compute_objective.h"
#include "gtest/gtest.h"
#include "training_test_data.h"

namespace shardplan::training {
namespace {

// Compares AddGradient (scale 2: the gradient of the sum of squared errors) with central
// differences of Predict's sum of squared errors, parameter by parameter.
void ExpectGradientMatchesFiniteDifferences(Objective& objective,
                                            const std::vector<int64_t>& samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> params(objective.num_params());
  objective.InitParams(rng, params);
  std::unique_ptr<Workspace> workspace = objective.NewWorkspace();
  objective.Prepare(params);
  std::vector<float> grad(params.size(), 0.0f);
  const double sse = objective.AddGradient(params, samples, 2.0f, grad, *workspace);
  std::vector<float> predictions(samples.size() * objective.num_outputs());
  EXPECT_DOUBLE_EQ(objective.Predict(params, samples, predictions.data(), *workspace), sse);

  const auto loss_at = [&](const std::vector<float>& p) {
    objective.Prepare(p);
    return objective.Predict(p, samples, predictions.data(), *workspace);
  };
  const float h = 1e-3f;
  int checked = 0;
  for (size_t p = 0; p < params.size(); p += 7) {  // every 7th: all layers, fast
    std::vector<float> plus = params;
    std::vector<float> minus = params;
    plus[p] += h;
    minus[p] -= h;
    const double numeric = (loss_at(plus) - loss_at(minus)) / (2.0 * h);
    EXPECT_NEAR(grad[p], numeric, 5e-3 + 1e-2 * std::abs(numeric)) << "param " << p;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

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

TEST(CommObjectiveTest, GradientMatchesFiniteDifferences) {
  const ToyLinear data = MakeToyLinear(5, 6, 3, 5);
  CommObjective objective(data.inputs, data.labels, MlpShape({6, 9, 7, 3}, false));
  EXPECT_EQ(objective.num_outputs(), 3);
  ExpectGradientMatchesFiniteDifferences(objective, {4, 1, 2}, 3);
}

TEST(CommObjectiveTest, DefaultShapeIsTheReferences) {
  const MlpShape shape = CommObjective::DefaultShape(8, 4);
  ASSERT_EQ(shape.num_layers(), 5);
  EXPECT_EQ(shape.in(0), 8);
  EXPECT_EQ(shape.out(0), 128);
  EXPECT_EQ(shape.out(1), 64);
  EXPECT_EQ(shape.out(2), 32);
  EXPECT_EQ(shape.out(3), 16);
  EXPECT_EQ(shape.output_size(), 4);
  EXPECT_FALSE(shape.relu_on_output());
}

}  // namespace
}  // namespace shardplan::training
