// DenseForward against a plain loop in the same order: bit for bit, whichever code path (AVX2
// or baseline) the CPU selects, since trained models must reproduce the trainer's predictions
// exactly and plans must not depend on the machine. The shapes reach every block width of the
// AVX2 code (64, 32 and 8 outputs, and the remainder).
#include "nn/dense_kernels.h"

#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(DenseForwardTest, BitIdenticalToAPlainLoopInInputOrder) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& [in, out] : {std::pair{20, 128}, std::pair{128, 32}, std::pair{32, 64},
                               std::pair{64, 1}, std::pair{32, 1}, std::pair{13, 1},
                               std::pair{16, 128}, std::pair{7, 13},
                               std::pair{9, 109}}) {
    for (bool relu : {false, true}) {
      std::vector<float> x(in), weight(static_cast<size_t>(in) * out), bias(out);
      for (float& v : x) v = normal(rng);
      for (float& v : weight) v = normal(rng);
      for (float& v : bias) v = normal(rng);
      std::vector<float> wt(weight.size());
      TransposeWeights(weight.data(), in, out, wt.data());
      std::vector<float> y(out);
      DenseForward(x.data(), in, out, wt.data(), bias.data(), relu, y.data());
      for (int o = 0; o < out; ++o) {
        volatile float expected = bias[o];  // volatile: one rounded product and sum at a time
        for (int i = 0; i < in; ++i) {
          const float product = x[i] * weight[static_cast<size_t>(o) * in + i];
          expected = expected + product;
        }
        const float want = relu && expected < 0.0f ? 0.0f : expected;
        EXPECT_EQ(std::memcmp(&y[o], &want, sizeof(float)), 0)
            << in << "->" << out << " output " << o << ": " << y[o] << " vs " << want;
      }
    }
  }
}

}  // namespace
}  // namespace shardplan
