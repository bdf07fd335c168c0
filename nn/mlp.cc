#include "nn/mlp.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nn/dense_kernels.h"

namespace shardplan {
absl::StatusOr<Mlp> Mlp::Create(std::vector<DenseLayer> layers, bool relu_on_output) {
  if (layers.empty()) return absl::InvalidArgumentError("mlp: no layers");
  for (size_t l = 0; l < layers.size(); ++l) {
    const DenseLayer& layer = layers[l];
    if (layer.in <= 0 || layer.out <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("mlp: layer ", l, " is ", layer.in, "->",
                                                     layer.out, "; sizes must be positive"));
    }
    if (layer.weight.size() != static_cast<size_t>(layer.in) * layer.out ||
        layer.bias.size() != static_cast<size_t>(layer.out)) {
      return absl::InvalidArgumentError(
          absl::StrCat("mlp: layer ", l, " is ", layer.in, "->", layer.out, " but has ",
                       layer.weight.size(), " weights and ", layer.bias.size(), " biases"));
    }
    if (l > 0 && layer.in != layers[l - 1].out) {
      return absl::InvalidArgumentError(absl::StrCat("mlp: layer ", l, " takes ", layer.in,
                                                     " inputs but layer ", l - 1, " gives ",
                                                     layers[l - 1].out));
    }
  }
  return Mlp(std::move(layers), relu_on_output);
}

Mlp::Mlp(std::vector<DenseLayer> layers, bool relu_on_output)
    : layers_(std::move(layers)), relu_on_output_(relu_on_output) {
  transposed_.reserve(layers_.size());
  for (const DenseLayer& layer : layers_) {
    std::vector<float> wt(layer.weight.size());
    TransposeWeights(layer.weight.data(), layer.in, layer.out, wt.data());
    transposed_.push_back(std::move(wt));
    max_width_ = std::max({max_width_, layer.in, layer.out});
  }
}

void Mlp::Forward(const float* input, int batch, float* output, std::span<float> scratch) const {
  float* buffers[2] = {scratch.data(), scratch.data() + max_width_};
  const int num_layers = static_cast<int>(layers_.size());
  for (int b = 0; b < batch; ++b) {
    const float* x = input + static_cast<size_t>(b) * input_size();
    for (int l = 0; l < num_layers; ++l) {
      const DenseLayer& layer = layers_[l];
      const bool last = l + 1 == num_layers;
      float* y = last ? output + static_cast<size_t>(b) * output_size() : buffers[l % 2];
      DenseForward(x, layer.in, layer.out, transposed_[l].data(), layer.bias.data(),
                   !last || relu_on_output_, y);
      x = y;
    }
  }
}

}  // namespace shardplan
