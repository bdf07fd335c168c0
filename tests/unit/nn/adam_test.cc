#include "nn/adam.h"

#include <cmath>
#include <random>
#include <vector>

#include "base/seeded_rng.h"
#include "gtest/gtest.h"
#include "nn/trainable_mlp.h"

namespace shardplan {
namespace {

TEST(AdamTest, FirstStepsMatchTorchsFormula) {
  Adam adam(2, AdamOptions{});
  std::vector<float> params = {1.0f, -2.0f};
  adam.Step(params, std::vector<float>{0.5f, -4.0f});
  // Step 1: m/(1-b1) = g and sqrt(v/(1-b2)) = |g|, so each parameter moves by lr against g.
  EXPECT_NEAR(params[0], 1.0f - 1e-3f, 1e-7);
  EXPECT_NEAR(params[1], -2.0f + 1e-3f, 1e-7);
  // Step 2 with g = 0: m = 0.09 g1, v = 0.000999 g1^2; p -= lr/(1-.81) m / (sqrt(v/(1-b2^2))+eps).
  adam.Step(params, std::vector<float>{0.0f, 0.0f});
  const double m = 0.1 * 0.9 * 0.5;
  const double v = 0.001 * 0.999 * 0.25;
  const double expected = 1.0 - 1e-3 - 1e-3 / (1 - 0.81) * m / (std::sqrt(v / (1 - 0.998001)) + 1e-8);
  EXPECT_NEAR(params[0], expected, 1e-6);
  EXPECT_EQ(adam.steps(), 2);
}

}  // namespace
}  // namespace shardplan
