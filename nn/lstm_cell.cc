#include "nn/lstm_cell.h"

#include <cmath>
#include <cstddef>

#include "nn/dense_kernels.h"

namespace shardplan {
namespace {

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void PackLstmLayer(const float* weight_ih, const float* weight_hh, const float* bias_ih,
                   const float* bias_hh, int in, int hidden, float* wt, float* bias) {
  const int gates = 4 * hidden;
  TransposeWeights(weight_ih, in, gates, wt);
  TransposeWeights(weight_hh, hidden, gates, wt + static_cast<size_t>(in) * gates);
  for (int r = 0; r < gates; ++r) bias[r] = bias_ih[r] + bias_hh[r];
}

void LstmCellForward(const float* z, int in, int hidden, const float* wt, const float* bias,
                     float* gates, float* c, float* h) {
  // Pre-activations in one product: bias + x W_ih^T + h W_hh^T, each gate summed in z's order.
  DenseForward(z, in + hidden, 4 * hidden, wt, bias, /*relu=*/false, gates);
  float* i = gates;
  float* f = gates + hidden;
  float* g = gates + 2 * hidden;
  float* o = gates + 3 * hidden;
  for (int j = 0; j < hidden; ++j) {
    i[j] = Sigmoid(i[j]);
    f[j] = Sigmoid(f[j]);
    g[j] = std::tanh(g[j]);
    o[j] = Sigmoid(o[j]);
    c[j] = f[j] * c[j] + i[j] * g[j];
    h[j] = o[j] * std::tanh(c[j]);
  }
}

}  // namespace shardplan
