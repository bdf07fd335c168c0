#include "nn/lstm_cell.h"

#include <cstddef>

#include "nn/activations.h"
#include "nn/dense_kernels.h"

namespace shardplan {
namespace {

// The gates' nonlinearities and the state update, written once and compiled twice below; only
// IEEE operations in a fixed order (nn/activations.h), so both give the same bits.
[[gnu::always_inline]] inline void GatesBody(int hidden, float* __restrict gates,
                                             float* __restrict c, float* __restrict h) {
  float* i = gates;
  float* f = gates + hidden;
  float* g = gates + 2 * hidden;
  float* o = gates + 3 * hidden;
  for (int j = 0; j < hidden; ++j) {
    i[j] = PortableSigmoid(i[j]);
    f[j] = PortableSigmoid(f[j]);
    g[j] = PortableTanh(g[j]);
    o[j] = PortableSigmoid(o[j]);
    c[j] = f[j] * c[j] + i[j] * g[j];
    h[j] = o[j] * PortableTanh(c[j]);
  }
}

[[gnu::target("avx2")]] void GatesAvx2(int hidden, float* __restrict gates, float* __restrict c,
                                       float* __restrict h) {
  GatesBody(hidden, gates, c, h);
}

void GatesBaseline(int hidden, float* __restrict gates, float* __restrict c, float* __restrict h) {
  GatesBody(hidden, gates, c, h);
}

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
  if (CpuHasAvx2()) {
    GatesAvx2(hidden, gates, c, h);
  } else {
    GatesBaseline(hidden, gates, c, h);
  }
}

}  // namespace shardplan
