#include "nn/trainable_mlp.h"

#include <algorithm>
#include <cmath>

#include "base/seeded_rng.h"
#include "nn/dense_kernels.h"

namespace shardplan {
namespace {

void Resize(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

MlpShape::MlpShape(std::vector<int> sizes, bool relu_on_output)
    : sizes_(std::move(sizes)), relu_on_output_(relu_on_output) {
  int64_t at = 0;
  for (int l = 0; l < num_layers(); ++l) {
    offsets_.push_back(at);
    at += static_cast<int64_t>(in(l)) * out(l) + out(l);
  }
  offsets_.push_back(at);
}

void InitParams(const MlpShape& shape, std::mt19937_64& rng, std::span<float> params) {
  for (int l = 0; l < shape.num_layers(); ++l) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(shape.in(l)));
    const int64_t end = shape.bias_offset(l) + shape.out(l);
    for (int64_t p = shape.weight_offset(l); p < end; ++p) {
      params[p] = static_cast<float>((2.0 * Uniform01(rng) - 1.0) * bound);
    }
  }
}

absl::StatusOr<Mlp> ToMlp(const MlpShape& shape, std::span<const float> params) {
  std::vector<DenseLayer> layers;
  for (int l = 0; l < shape.num_layers(); ++l) {
    DenseLayer layer;
    layer.in = shape.in(l);
    layer.out = shape.out(l);
    const float* w = params.data() + shape.weight_offset(l);
    const float* b = params.data() + shape.bias_offset(l);
    layer.weight.assign(w, w + static_cast<size_t>(layer.in) * layer.out);
    layer.bias.assign(b, b + layer.out);
    layers.push_back(std::move(layer));
  }
  return Mlp::Create(std::move(layers), shape.relu_on_output());
}

void TransposedWeights::Update(const MlpShape& shape, std::span<const float> params) {
  weights_.resize(shape.num_layers());
  for (int l = 0; l < shape.num_layers(); ++l) {
    const int in = shape.in(l);
    const int out = shape.out(l);
    std::vector<float>& wt = weights_[l];
    wt.resize(static_cast<size_t>(in) * out);
    TransposeWeights(params.data() + shape.weight_offset(l), in, out, wt.data());
  }
}

void MlpForward(const MlpShape& shape, std::span<const float> params,
                const TransposedWeights& transposed, const float* input, int batch,
                MlpTape& tape) {
  tape.outputs.resize(shape.num_layers());
  tape.gradients.resize(shape.num_layers());
  const float* x = input;
  for (int l = 0; l < shape.num_layers(); ++l) {
    const int in = shape.in(l);
    const int out = shape.out(l);
    Resize(tape.outputs[l], static_cast<size_t>(batch) * out);
    float* y_all = tape.outputs[l].data();
    const float* wt = transposed.layer(l);
    const float* bias = params.data() + shape.bias_offset(l);
    const bool relu = shape.relu_after(l);
    for (int b = 0; b < batch; ++b) {
      DenseForward(x + static_cast<size_t>(b) * in, in, out, wt, bias, relu,
                   y_all + static_cast<size_t>(b) * out);
    }
    x = y_all;
  }
}

float* OutputGradient(const MlpShape& shape, int batch, MlpTape& tape) {
  tape.gradients.resize(shape.num_layers());
  std::vector<float>& g = tape.gradients.back();
  Resize(g, static_cast<size_t>(batch) * shape.output_size());
  return g.data();
}

void MlpBackward(const MlpShape& shape, std::span<const float> params, const float* input,
                 int batch, MlpTape& tape, std::span<float> grad, float* input_grad) {
  for (int l = shape.num_layers() - 1; l >= 0; --l) {
    const int in = shape.in(l);
    const int out = shape.out(l);
    float* dy = tape.gradients[l].data();
    const float* y = tape.outputs[l].data();
    const size_t n = static_cast<size_t>(batch) * out;
    // ReLU passes the gradient where its output is positive.
    if (shape.relu_after(l)) {
      for (size_t k = 0; k < n; ++k) dy[k] = y[k] > 0.0f ? dy[k] : 0.0f;
    }
    const float* x = l == 0 ? input : tape.outputs[l - 1].data();
    float* dw = grad.data() + shape.weight_offset(l);
    float* __restrict db = grad.data() + shape.bias_offset(l);
    for (int b = 0; b < batch; ++b) {
      const float* dyb = dy + static_cast<size_t>(b) * out;
      const float* __restrict xb = x + static_cast<size_t>(b) * in;
      for (int o = 0; o < out; ++o) {
        const float g = dyb[o];
        db[o] += g;
        float* __restrict row = dw + static_cast<size_t>(o) * in;
        for (int i = 0; i < in; ++i) row[i] += g * xb[i];
      }
    }
    float* dx = nullptr;
    if (l > 0) {
      Resize(tape.gradients[l - 1], static_cast<size_t>(batch) * in);
      dx = tape.gradients[l - 1].data();
    } else {
      dx = input_grad;
    }
    if (dx == nullptr) continue;
    const float* w = params.data() + shape.weight_offset(l);
    for (int b = 0; b < batch; ++b) {
      float* __restrict dxb = dx + static_cast<size_t>(b) * in;
      std::fill(dxb, dxb + in, 0.0f);
      const float* dyb = dy + static_cast<size_t>(b) * out;
      for (int o = 0; o < out; ++o) {
        const float g = dyb[o];
        const float* __restrict row = w + static_cast<size_t>(o) * in;
        for (int i = 0; i < in; ++i) dxb[i] += g * row[i];
      }
    }
  }
}

}  // namespace shardplan
