// The training half of nn/lstm.h (shardplan_nn_training): flat parameters, init, forward over a
// sequence with a tape, and backpropagation through time.

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "base/seeded_rng.h"
#include "nn/activations.h"
#include "nn/lstm.h"
#include "nn/lstm_cell.h"

namespace shardplan {
namespace {

void ResizeLstmBuffer(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

LstmShape::LstmShape(int input_size, int hidden_size, int num_layers)
    : input_size_(input_size), hidden_size_(hidden_size), num_layers_(num_layers) {
  int64_t at = 0;
  for (int l = 0; l < num_layers_; ++l) {
    offsets_.push_back(at);
    const int64_t gates = int64_t{4} * hidden_size_;
    at += gates * layer_input(l) + gates * hidden_size_ + 2 * gates;
  }
  offsets_.push_back(at);
}

void InitLstmParams(const LstmShape& shape, std::mt19937_64& rng, std::span<float> params) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(shape.hidden_size()));
  for (int64_t p = 0; p < shape.num_params(); ++p) {
    params[p] = static_cast<float>((2.0 * Uniform01(rng) - 1.0) * bound);
  }
}

absl::StatusOr<Lstm> ToLstm(const LstmShape& shape, std::span<const float> params) {
  const auto slice = [&](int64_t offset, int64_t n) {
    const float* p = params.data() + offset;
    return std::vector<float>(p, p + n);
  };
  std::vector<LstmLayer> layers;
  const int64_t gates = int64_t{4} * shape.hidden_size();
  for (int l = 0; l < shape.num_layers(); ++l) {
    LstmLayer layer;
    layer.in = shape.layer_input(l);
    layer.hidden = shape.hidden_size();
    layer.weight_ih = slice(shape.weight_ih_offset(l), gates * layer.in);
    layer.weight_hh = slice(shape.weight_hh_offset(l), gates * layer.hidden);
    layer.bias_ih = slice(shape.bias_ih_offset(l), gates);
    layer.bias_hh = slice(shape.bias_hh_offset(l), gates);
    layers.push_back(std::move(layer));
  }
  return Lstm::Create(std::move(layers));
}

void LstmForward(const LstmShape& shape, std::span<const float> params, const float* inputs,
                 int steps, LstmTape& tape, const LstmSequenceStart& start) {
  const int hidden = shape.hidden_size();
  const int num_gates = 4 * hidden;
  const size_t layers = shape.num_layers();
  tape.steps = steps;
  tape.continues.assign(steps, 0);
  for (int t = 1; t < steps; ++t) {
    tape.continues[t] = start.reset.empty() || start.reset[t] == 0 ? 1 : 0;
  }
  const bool reset_first = !start.reset.empty() && steps > 0 && start.reset[0] != 0;
  for (auto* v : {&tape.packed_weights, &tape.packed_bias, &tape.z, &tape.gates, &tape.c_prev,
                  &tape.c, &tape.h}) {
    v->resize(layers);
  }
  const float* x_all = inputs;
  for (int l = 0; l < shape.num_layers(); ++l) {
    const int in = shape.layer_input(l);
    const int width = in + hidden;
    ResizeLstmBuffer(tape.packed_weights[l], static_cast<size_t>(width) * num_gates);
    ResizeLstmBuffer(tape.packed_bias[l], num_gates);
    PackLstmLayer(params.data() + shape.weight_ih_offset(l),
                  params.data() + shape.weight_hh_offset(l),
                  params.data() + shape.bias_ih_offset(l), params.data() + shape.bias_hh_offset(l),
                  in, hidden, tape.packed_weights[l].data(), tape.packed_bias[l].data());
    for (auto* v : {&tape.c_prev[l], &tape.c[l], &tape.h[l]}) {
      ResizeLstmBuffer(*v, static_cast<size_t>(steps) * hidden);
    }
    ResizeLstmBuffer(tape.z[l], static_cast<size_t>(steps) * width);
    ResizeLstmBuffer(tape.gates[l], static_cast<size_t>(steps) * num_gates);
    // The state before step 0: `start`'s for this layer unless absent or reset.
    const size_t layer_state = static_cast<size_t>(l) * hidden;
    const float* h0 = start.h.empty() || reset_first ? nullptr : start.h.data() + layer_state;
    const float* c0 = start.c.empty() || reset_first ? nullptr : start.c.data() + layer_state;
    for (int t = 0; t < steps; ++t) {
      float* z = tape.z[l].data() + static_cast<size_t>(t) * width;
      float* c_prev = tape.c_prev[l].data() + static_cast<size_t>(t) * hidden;
      float* c = tape.c[l].data() + static_cast<size_t>(t) * hidden;
      float* h = tape.h[l].data() + static_cast<size_t>(t) * hidden;
      const float* x = x_all + static_cast<size_t>(t) * in;
      std::copy(x, x + in, z);
      const float* h_prev = t > 0 ? (tape.continues[t] ? h - hidden : nullptr) : h0;
      const float* c_from = t > 0 ? (tape.continues[t] ? c - hidden : nullptr) : c0;
      if (h_prev != nullptr) {
        std::copy(h_prev, h_prev + hidden, z + in);
      } else {
        std::fill(z + in, z + width, 0.0f);
      }
      if (c_from != nullptr) {
        std::copy(c_from, c_from + hidden, c_prev);
      } else {
        std::fill(c_prev, c_prev + hidden, 0.0f);
      }
      std::copy(c_prev, c_prev + hidden, c);
      LstmCellForward(z, in, hidden, tape.packed_weights[l].data(), tape.packed_bias[l].data(),
                      tape.gates[l].data() + static_cast<size_t>(t) * num_gates, c, h);
    }
    x_all = tape.h[l].data();
  }
}

const float* LstmOutputs(const LstmTape& tape) { return tape.h.back().data(); }

void LstmBackward(const LstmShape& shape, std::span<const float> params, const float* inputs,
                  int steps, LstmTape& tape, const float* d_outputs, std::span<float> grad,
                  float* d_inputs) {
  (void)inputs;  // the tape's z holds every layer's input
  const int hidden = shape.hidden_size();
  const int num_gates = 4 * hidden;
  if (steps <= 0 || hidden <= 0) return;  // nothing to add (and GCC then knows the sizes' sign)
  for (std::vector<float>& d : tape.d_out) ResizeLstmBuffer(d, static_cast<size_t>(steps) * hidden);
  ResizeLstmBuffer(tape.d_pre, static_cast<size_t>(steps) * num_gates);
  ResizeLstmBuffer(tape.d_h_next, hidden);
  ResizeLstmBuffer(tape.d_c_next, hidden);
  float* __restrict d_h_next = tape.d_h_next.data();
  float* __restrict d_c_next = tape.d_c_next.data();

  const float* d_above = d_outputs;  // dL/d(this layer's h_t) from above, per step
  for (int l = shape.num_layers() - 1; l >= 0; --l) {
    const int in = shape.layer_input(l);
    const int width = in + hidden;
    float* d_below = l > 0 ? tape.d_out[l % 2].data() : d_inputs;  // steps x in, or null
    const float* w_ih = params.data() + shape.weight_ih_offset(l);
    const float* w_hh = params.data() + shape.weight_hh_offset(l);
    float* g_w_ih = grad.data() + shape.weight_ih_offset(l);
    float* g_w_hh = grad.data() + shape.weight_hh_offset(l);
    float* __restrict g_b_ih = grad.data() + shape.bias_ih_offset(l);
    float* __restrict g_b_hh = grad.data() + shape.bias_hh_offset(l);
    std::fill(d_h_next, d_h_next + hidden, 0.0f);
    std::fill(d_c_next, d_c_next + hidden, 0.0f);
    for (int t = steps - 1; t >= 0; --t) {
      const float* act = tape.gates[l].data() + static_cast<size_t>(t) * num_gates;
      const float* i = act;
      const float* f = act + hidden;
      const float* g = act + 2 * hidden;
      const float* o = act + 3 * hidden;
      const float* c = tape.c[l].data() + static_cast<size_t>(t) * hidden;
      const float* c_prev = tape.c_prev[l].data() + static_cast<size_t>(t) * hidden;
      const float* d_h_out = d_above + static_cast<size_t>(t) * hidden;
      float* __restrict d_pre = tape.d_pre.data() + static_cast<size_t>(t) * num_gates;
      // Through h = o * tanh(c) and c = f * c_prev + i * g to the gates' pre-activations
      // (sigmoid' = s (1 - s), tanh' = 1 - t^2); d_c_next becomes dL/dc_{t-1}.
      for (int j = 0; j < hidden; ++j) {
        const float dh = d_h_out[j] + d_h_next[j];
        const float tc = PortableTanh(c[j]);
        const float dc = d_c_next[j] + dh * o[j] * (1.0f - tc * tc);
        const float cp = c_prev[j];
        d_pre[j] = dc * g[j] * (i[j] * (1.0f - i[j]));
        d_pre[hidden + j] = dc * cp * (f[j] * (1.0f - f[j]));
        d_pre[2 * hidden + j] = dc * i[j] * (1.0f - g[j] * g[j]);
        d_pre[3 * hidden + j] = dh * tc * (o[j] * (1.0f - o[j]));
        d_c_next[j] = dc * f[j];
      }
      // dL/dx_t = W_ih^T d_pre and dL/dh_{t-1} = W_hh^T d_pre, each summed over the gate rows
      // in order (contiguous inner loops, no reassociation).
      if (d_below != nullptr) {
        float* __restrict dx = d_below + static_cast<size_t>(t) * in;
        std::fill(dx, dx + in, 0.0f);
        for (int r = 0; r < num_gates; ++r) {
          const float d = d_pre[r];
          const float* __restrict row = w_ih + static_cast<size_t>(r) * in;
          for (int k = 0; k < in; ++k) dx[k] += d * row[k];
        }
      }
      std::fill(d_h_next, d_h_next + hidden, 0.0f);
      if (!tape.continues[t]) {
        // Step t started from a given or zero state: nothing flows into step t - 1.
        std::fill(d_c_next, d_c_next + hidden, 0.0f);
        continue;
      }
      for (int r = 0; r < num_gates; ++r) {
        const float d = d_pre[r];
        const float* __restrict row = w_hh + static_cast<size_t>(r) * hidden;
        for (int k = 0; k < hidden; ++k) d_h_next[k] += d * row[k];
      }
    }
    // Parameters, after the time loop: both biases get each step's pre-activation gradient, the
    // weights its outer product with z_t = [x_t; h_{t-1}]. Row by row over the steps (last to
    // first, as the loop above) so that a weight row stays in cache while z streams, instead of
    // the whole gradient matrix passing through memory every step.
    for (int r = 0; r < num_gates; ++r) {
      float* __restrict row_ih = g_w_ih + static_cast<size_t>(r) * in;
      float* __restrict row_hh = g_w_hh + static_cast<size_t>(r) * hidden;
      for (int t = steps - 1; t >= 0; --t) {
        const float d = tape.d_pre[static_cast<size_t>(t) * num_gates + r];
        const float* __restrict z = tape.z[l].data() + static_cast<size_t>(t) * width;
        g_b_ih[r] += d;
        g_b_hh[r] += d;
        for (int k = 0; k < in; ++k) row_ih[k] += d * z[k];
        for (int k = 0; k < hidden; ++k) row_hh[k] += d * z[in + k];
      }
    }
    d_above = d_below;
  }
}

}  // namespace shardplan
