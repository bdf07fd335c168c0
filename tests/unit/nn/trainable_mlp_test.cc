#include "nn/trainable_mlp.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "base/seeded_rng.h"
#include "gtest/gtest.h"
#include "nn/adam.h"

namespace shardplan {
namespace {

std::vector<float> RandomValues(size_t n, std::mt19937_64& rng, double scale = 1.0) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>((2.0 * Uniform01(rng) - 1.0) * scale);
  return v;
}

// 0.5 * sum of (output - target)^2 over the batch, in double.
double HalfSquaredError(const MlpShape& shape, const std::vector<float>& params,
                        const std::vector<float>& input, int batch,
                        const std::vector<float>& target) {
  TransposedWeights transposed;
  transposed.Update(shape, params);
  MlpTape tape;
  MlpForward(shape, params, transposed, input.data(), batch, tape);
  double loss = 0.0;
  for (size_t k = 0; k < target.size(); ++k) {
    const double e = tape.outputs.back()[k] - target[k];
    loss += 0.5 * e * e;
  }
  return loss;
}

// Central difference (step 1e-3) of loss() in entry k of *values (params or input).
template <typename Loss>
double CentralDifference(std::vector<float>* values, size_t k, const Loss& loss) {
  const float h = 1e-3f;
  const float saved = (*values)[k];
  (*values)[k] = saved + h;
  const double plus = loss();
  (*values)[k] = saved - h;
  const double minus = loss();
  (*values)[k] = saved;
  return (plus - minus) / (2.0 * h);
}

TEST(MlpShapeTest, LayoutIsWeightThenBiasPerLayer) {
  const MlpShape shape({3, 4, 2}, false);
  EXPECT_EQ(shape.num_layers(), 2);
  EXPECT_EQ(shape.weight_offset(0), 0);
  EXPECT_EQ(shape.bias_offset(0), 12);
  EXPECT_EQ(shape.weight_offset(1), 16);
  EXPECT_EQ(shape.bias_offset(1), 24);
  EXPECT_EQ(shape.num_params(), 26);
  EXPECT_TRUE(shape.relu_after(0));
  EXPECT_FALSE(shape.relu_after(1));
}

TEST(TrainableMlpTest, InitIsTorchLinearDefaultBoundAndSeeded) {
  const MlpShape shape({16, 4, 1}, false);
  std::vector<float> a(shape.num_params());
  std::vector<float> b(shape.num_params());
  std::mt19937_64 rng_a(7);
  std::mt19937_64 rng_b(7);
  InitParams(shape, rng_a, a);
  InitParams(shape, rng_b, b);
  EXPECT_EQ(a, b);
  for (int64_t p = 0; p < shape.weight_offset(1); ++p) EXPECT_LE(std::abs(a[p]), 0.25f);
  for (int64_t p = shape.weight_offset(1); p < shape.num_params(); ++p) {
    EXPECT_LE(std::abs(a[p]), 0.5f);  // 1 / sqrt(4)
  }
  float largest = 0.0f;
  for (int64_t p = 0; p < shape.weight_offset(1); ++p) largest = std::max(largest, std::abs(a[p]));
  EXPECT_GT(largest, 0.2f);  // spread over the whole range
}

TEST(TrainableMlpTest, ForwardMatchesTheInferenceMlp) {
  const MlpShape shape({5, 7, 3}, true);
  std::mt19937_64 rng(1);
  std::vector<float> params(shape.num_params());
  InitParams(shape, rng, params);
  const std::vector<float> input = RandomValues(4 * 5, rng, 2.0);
  TransposedWeights transposed;
  transposed.Update(shape, params);
  MlpTape tape;
  MlpForward(shape, params, transposed, input.data(), 4, tape);
  absl::StatusOr<Mlp> mlp = ToMlp(shape, params);
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  EXPECT_TRUE(mlp->relu_on_output());
  std::vector<float> expected(4 * 3);
  std::vector<float> scratch(mlp->scratch_size());
  mlp->Forward(input.data(), 4, expected.data(), scratch);
  for (size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(tape.outputs.back()[k], expected[k]);
}

TEST(TrainableMlpTest, GradientsMatchFiniteDifferences) {
  const MlpShape shape({4, 6, 5, 2}, false);
  std::mt19937_64 rng(3);
  std::vector<float> params(shape.num_params());
  InitParams(shape, rng, params);
  const int batch = 3;
  std::vector<float> input = RandomValues(batch * 4, rng, 1.5);
  const std::vector<float> target = RandomValues(batch * 2, rng);

  TransposedWeights transposed;
  transposed.Update(shape, params);
  MlpTape tape;
  MlpForward(shape, params, transposed, input.data(), batch, tape);
  float* out_grad = OutputGradient(shape, batch, tape);
  for (size_t k = 0; k < target.size(); ++k) out_grad[k] = tape.outputs.back()[k] - target[k];
  std::vector<float> grad(shape.num_params(), 0.0f);
  std::vector<float> input_grad(input.size());
  MlpBackward(shape, params, input.data(), batch, tape, grad, input_grad.data());

  const auto numeric = [&](std::vector<float>* values, size_t k) {
    return CentralDifference(values, k,
                             [&] { return HalfSquaredError(shape, params, input, batch, target); });
  };
  for (size_t p = 0; p < params.size(); ++p) {
    const double expected = numeric(&params, p);
    EXPECT_NEAR(grad[p], expected, 2e-3 + 1e-2 * std::abs(expected)) << "param " << p;
  }
  for (size_t i = 0; i < input.size(); ++i) {
    const double expected = numeric(&input, i);
    EXPECT_NEAR(input_grad[i], expected, 2e-3 + 1e-2 * std::abs(expected)) << "input " << i;
  }
}

// The learned planners' policy-gradient loss through an MLP's logits: per row b (a decision),
// L_b = -A_b log softmax(z_b)[a_b] - beta H(softmax(z_b)), with advantage A_b, chosen action a_b
// and entropy bonus beta. Its logit gradient, A_b (p - onehot(a_b)) + beta p (log p + H), goes
// through MlpBackward; checked against central differences of the loss in double.
TEST(TrainableMlpTest, PolicyGradientThroughLogSoftmaxMatchesFiniteDifferences) {
  const MlpShape shape({5, 8, 6, 4}, false);
  std::mt19937_64 rng(17);
  std::vector<float> params(shape.num_params());
  InitParams(shape, rng, params);
  const int batch = 4;
  const int actions = shape.output_size();
  std::vector<float> input = RandomValues(batch * 5, rng, 2.0);
  const std::vector<int> chosen = {2, 0, 3, 1};
  const std::vector<double> advantage = {1.5, -0.75, 0.25, -2.0};
  const double beta = 0.5;  // large enough that a wrong entropy term fails

  // log softmax of one row of logits, in double (max-shifted).
  const auto log_softmax = [&](const float* z) {
    const double top = *std::max_element(z, z + actions);
    double sum = 0.0;
    for (int k = 0; k < actions; ++k) sum += std::exp(z[k] - top);
    std::vector<double> out(actions);
    for (int k = 0; k < actions; ++k) out[k] = z[k] - top - std::log(sum);
    return out;
  };
  const auto loss = [&] {
    TransposedWeights transposed;
    transposed.Update(shape, params);
    MlpTape tape;
    MlpForward(shape, params, transposed, input.data(), batch, tape);
    double total = 0.0;
    for (int b = 0; b < batch; ++b) {
      const std::vector<double> lp = log_softmax(tape.outputs.back().data() + b * actions);
      double entropy = 0.0;
      for (double l : lp) entropy -= std::exp(l) * l;
      total += -advantage[b] * lp[chosen[b]] - beta * entropy;
    }
    return total;
  };

  TransposedWeights transposed;
  transposed.Update(shape, params);
  MlpTape tape;
  MlpForward(shape, params, transposed, input.data(), batch, tape);
  float* d_logits = OutputGradient(shape, batch, tape);
  for (int b = 0; b < batch; ++b) {
    const std::vector<double> lp = log_softmax(tape.outputs.back().data() + b * actions);
    double entropy = 0.0;
    for (double l : lp) entropy -= std::exp(l) * l;
    for (int k = 0; k < actions; ++k) {
      const double p = std::exp(lp[k]);
      const double onehot = k == chosen[b] ? 1.0 : 0.0;
      d_logits[b * actions + k] =
          static_cast<float>(advantage[b] * (p - onehot) + beta * p * (lp[k] + entropy));
    }
  }
  std::vector<float> grad(shape.num_params(), 0.0f);
  std::vector<float> input_grad(input.size());
  MlpBackward(shape, params, input.data(), batch, tape, grad, input_grad.data());

  const auto numeric = [&](std::vector<float>* values, size_t k) {
    return CentralDifference(values, k, loss);
  };
  // Float forward, step 1e-3: the differences carry ~1e-4 of rounding noise.
  double worst = 0.0;
  for (size_t p = 0; p < params.size(); ++p) {
    const double expected = numeric(&params, p);
    worst = std::max(worst, std::abs(grad[p] - expected));
    EXPECT_NEAR(grad[p], expected, 5e-4 + 1e-3 * std::abs(expected)) << "param " << p;
  }
  for (size_t i = 0; i < input.size(); ++i) {
    const double expected = numeric(&input, i);
    worst = std::max(worst, std::abs(input_grad[i] - expected));
    EXPECT_NEAR(input_grad[i], expected, 5e-4 + 1e-3 * std::abs(expected)) << "input " << i;
  }
  std::cout << "max absolute error " << worst << "\n";
}

}  // namespace
}  // namespace shardplan
