#include "nn/activations.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

// Every 1/4096 from -100 to 100 (819201 points, all exact floats), plus what is small near 0.
template <typename Check>
void Sweep(Check check) {
  for (int k = -409600; k <= 409600; ++k) check(static_cast<float>(k) / 4096.0f);
  for (float x = 1e-30f; x < 1.0f; x *= 1.5f) {
    check(x);
    check(-x);
  }
}

double Relative(double actual, double expected) {
  return std::abs(actual - expected) / std::abs(expected);
}

TEST(ActivationsTest, ExpIsWithinAFewUlpsAndClamped) {
  double worst = 0.0;
  Sweep([&](float x) {
    const double expected = std::exp(static_cast<double>(std::clamp(x, -87.0f, 88.0f)));
    const double error = Relative(PortableExp(x), expected);
    worst = std::max(worst, error);
    ASSERT_LE(error, 2e-7) << x;
  });
  std::cout << "exp: max relative error " << worst << "\n";
  EXPECT_EQ(PortableExp(0.0f), 1.0f);
  EXPECT_EQ(PortableExp(-1000.0f), PortableExp(-87.0f));
  EXPECT_EQ(PortableExp(1000.0f), PortableExp(88.0f));
  EXPECT_TRUE(std::isfinite(PortableExp(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(PortableExp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(ActivationsTest, SigmoidIsWithinAFewUlps) {
  double worst = 0.0;
  Sweep([&](float x) {
    const double expected = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
    if (expected < 1e-37) return;  // the clamp's floor (e^-87) rules there
    const double error = Relative(PortableSigmoid(x), expected);
    worst = std::max(worst, error);
    ASSERT_LE(error, 3e-7) << x;
  });
  std::cout << "sigmoid: max relative error " << worst << "\n";
  EXPECT_EQ(PortableSigmoid(0.0f), 0.5f);
  EXPECT_EQ(PortableSigmoid(100.0f), 1.0f);
  EXPECT_GE(PortableSigmoid(-100.0f), 0.0f);
  EXPECT_LT(PortableSigmoid(-100.0f), 1e-37f);
  EXPECT_TRUE(std::isnan(PortableSigmoid(std::numeric_limits<float>::quiet_NaN())));
}

TEST(ActivationsTest, TanhIsWithinAFewUlpsAndOdd) {
  double worst = 0.0;
  Sweep([&](float x) {
    if (x == 0.0f) return;
    const double error = Relative(PortableTanh(x), std::tanh(static_cast<double>(x)));
    worst = std::max(worst, error);
    ASSERT_LE(error, 3e-7) << x;
    ASSERT_EQ(PortableTanh(-x), -PortableTanh(x)) << x;
  });
  std::cout << "tanh: max relative error " << worst << "\n";
  EXPECT_EQ(PortableTanh(0.0f), 0.0f);
  EXPECT_EQ(PortableTanh(50.0f), 1.0f);
  EXPECT_EQ(PortableTanh(-50.0f), -1.0f);
  EXPECT_TRUE(std::isnan(PortableTanh(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace shardplan
