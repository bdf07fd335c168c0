#include "nn/mlp.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/nn/reference_mlp.h"

namespace shardplan {
namespace {

using testing_neural::Close;
using testing_neural::RandomLayers;
using testing_neural::ReferenceForward;

void ExpectMatchesReference(const std::vector<int>& sizes, bool relu_on_output, int batch,
                            unsigned seed) {
  std::mt19937 rng(seed);
  const std::vector<DenseLayer> layers = RandomLayers(sizes, rng);
  auto mlp = Mlp::Create(layers, relu_on_output);
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  EXPECT_EQ(mlp->input_size(), sizes.front());
  EXPECT_EQ(mlp->output_size(), sizes.back());

  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> input(static_cast<size_t>(batch) * sizes.front());
  for (float& x : input) x = normal(rng);
  // Guard values around the output catch writes out of bounds.
  std::vector<float> output(static_cast<size_t>(batch) * sizes.back() + 2, 12345.0f);
  std::vector<float> scratch(mlp->scratch_size());
  mlp->Forward(input.data(), batch, output.data() + 1, scratch);
  EXPECT_EQ(output.front(), 12345.0f);
  EXPECT_EQ(output.back(), 12345.0f);

  for (int b = 0; b < batch; ++b) {
    std::vector<double> x(input.begin() + b * sizes.front(),
                          input.begin() + (b + 1) * sizes.front());
    const std::vector<double> expected = ReferenceForward(layers, x, relu_on_output);
    for (int o = 0; o < sizes.back(); ++o) {
      const double actual = output[1 + b * sizes.back() + o];
      EXPECT_TRUE(Close(actual, expected[o]))
          << "row " << b << " output " << o << ": " << actual << " vs " << expected[o];
      if (relu_on_output) {
        EXPECT_GE(actual, 0.0);
      }
    }
  }
}

TEST(MlpTest, TableMlpMatchesReference) { ExpectMatchesReference({20, 128, 32}, true, 37, 1); }
TEST(MlpTest, PredMlpMatchesReference) { ExpectMatchesReference({32, 64, 1}, false, 9, 2); }
TEST(MlpTest, CommMlpMatchesReference) {
  ExpectMatchesReference({8, 128, 64, 32, 16, 4}, false, 16, 3);
  ExpectMatchesReference({8, 128, 64, 32, 16, 8}, false, 5, 4);
}

TEST(MlpTest, SingleLayerAndOddSizes) { ExpectMatchesReference({7, 3}, false, 4, 5); }

TEST(MlpTest, OutputCanBeNegativeWithoutOutputRelu) {
  DenseLayer layer{1, 1, {1.0f}, {-5.0f}};
  auto mlp = Mlp::Create({layer});
  ASSERT_TRUE(mlp.ok());
  float in = 2.0f, out = 0.0f;
  std::vector<float> scratch(mlp->scratch_size());
  mlp->Forward(&in, 1, &out, scratch);
  EXPECT_FLOAT_EQ(out, -3.0f);
}

TEST(MlpTest, RejectsInconsistentLayers) {
  EXPECT_FALSE(Mlp::Create({}).ok());
  EXPECT_FALSE(Mlp::Create({DenseLayer{2, 2, {1, 2, 3}, {0, 0}}}).ok());   // weight size
  EXPECT_FALSE(Mlp::Create({DenseLayer{2, 1, {1, 2}, {0, 0}}}).ok());      // bias size
  EXPECT_FALSE(Mlp::Create({DenseLayer{0, 1, {}, {0}}}).ok());             // empty input
  EXPECT_FALSE(Mlp::Create({DenseLayer{1, 2, {1, 2}, {0, 0}},
                            DenseLayer{3, 1, {1, 2, 3}, {0}}})
                   .ok());  // 2 outputs feed 3 inputs
}

}  // namespace
}  // namespace shardplan
