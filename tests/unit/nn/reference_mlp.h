#ifndef SHARDPLAN_TESTS_UNIT_NN_REFERENCE_MLP_H_
#define SHARDPLAN_TESTS_UNIT_NN_REFERENCE_MLP_H_

// An independent, naive double-precision forward pass for the tests, straight from the
// torch.nn.Linear definition y = x W^T + b with W [out][in], and random weights to feed it.

#include <cmath>
#include <random>
#include <vector>

#include "nn/mlp.h"

namespace shardplan::testing_neural {

inline DenseLayer RandomLayer(int in, int out, std::mt19937& rng) {
  // torch's default init range: U(-1/sqrt(in), 1/sqrt(in)).
  std::uniform_real_distribution<float> u(-1.0f / std::sqrt(static_cast<float>(in)),
                                          1.0f / std::sqrt(static_cast<float>(in)));
  DenseLayer layer;
  layer.in = in;
  layer.out = out;
  for (int i = 0; i < in * out; ++i) layer.weight.push_back(u(rng));
  for (int o = 0; o < out; ++o) layer.bias.push_back(u(rng));
  return layer;
}

inline std::vector<DenseLayer> RandomLayers(const std::vector<int>& sizes, std::mt19937& rng) {
  std::vector<DenseLayer> layers;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) layers.push_back(RandomLayer(sizes[l], sizes[l + 1], rng));
  return layers;
}

inline std::vector<double> ReferenceForward(const std::vector<DenseLayer>& layers,
                                            std::vector<double> x, bool relu_on_output) {
  for (size_t l = 0; l < layers.size(); ++l) {
    const DenseLayer& layer = layers[l];
    std::vector<double> y(layer.out);
    for (int o = 0; o < layer.out; ++o) {
      double acc = layer.bias[o];
      for (int i = 0; i < layer.in; ++i) {
        acc += static_cast<double>(layer.weight[o * layer.in + i]) * x[i];
      }
      const bool relu = l + 1 < layers.size() || relu_on_output;
      y[o] = relu ? std::max(acc, 0.0) : acc;
    }
    x = std::move(y);
  }
  return x;
}

// |actual - expected| <= 1e-5 * max(1, |expected|): relative, with an absolute floor near 0.
inline bool Close(double actual, double expected) {
  return std::abs(actual - expected) <= 1e-5 * std::max(1.0, std::abs(expected));
}

}  // namespace shardplan::testing_neural

#endif  // SHARDPLAN_TESTS_UNIT_NN_REFERENCE_MLP_H_
