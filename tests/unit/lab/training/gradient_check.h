#ifndef SHARDPLAN_TESTS_UNIT_LAB_TRAINING_GRADIENT_CHECK_H_
#define SHARDPLAN_TESTS_UNIT_LAB_TRAINING_GRADIENT_CHECK_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/objective.h"

namespace shardplan::training {

// Compares AddGradient (scale 2: the gradient of the sum of squared errors) with central
// differences of Predict's sum of squared errors, parameter by parameter.
inline void ExpectGradientMatchesFiniteDifferences(Objective& objective,
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

}  // namespace shardplan::training

#endif  // SHARDPLAN_TESTS_UNIT_LAB_TRAINING_GRADIENT_CHECK_H_
