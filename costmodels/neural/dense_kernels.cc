#include "costmodels/neural/dense_kernels.h"

#include <algorithm>
#include <cstddef>

namespace shardplan {
namespace {

// The layer, written once and compiled twice below. Each output accumulates its inputs in index
// order whatever the vector width, so the AVX2 and the baseline code give bit-identical results
// (no FMA: neither target enables it, so nothing is contracted).
[[gnu::always_inline]] inline void DenseForwardBody(const float* __restrict x, int in, int out,
                                                    const float* __restrict wt,
                                                    const float* __restrict bias, bool relu,
                                                    float* __restrict y) {
  std::copy(bias, bias + out, y);
  for (int i = 0; i < in; ++i) {
    const float xi = x[i];
    const float* __restrict row = wt + static_cast<size_t>(i) * out;
    for (int o = 0; o < out; ++o) y[o] += xi * row[o];
  }
  if (relu) {
    for (int o = 0; o < out; ++o) y[o] = y[o] > 0.0f ? y[o] : 0.0f;
  }
}

[[gnu::target("avx2")]] void DenseForwardAvx2(const float* __restrict x, int in, int out,
                                                const float* __restrict wt,
                                                const float* __restrict bias, bool relu,
                                                float* __restrict y) {
  DenseForwardBody(x, in, out, wt, bias, relu, y);
}

void DenseForwardBaseline(const float* __restrict x, int in, int out,
                          const float* __restrict wt, const float* __restrict bias, bool relu,
                          float* __restrict y) {
  DenseForwardBody(x, in, out, wt, bias, relu, y);
}

// The build stays portable (no -march): the wider code runs where the CPU has it.
bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

}  // namespace

void TransposeWeights(const float* weight, int in, int out, float* wt) {
  for (int o = 0; o < out; ++o) {
    for (int i = 0; i < in; ++i) {
      wt[static_cast<size_t>(i) * out + o] = weight[static_cast<size_t>(o) * in + i];
    }
  }
}

void DenseForward(const float* __restrict x, int in, int out, const float* __restrict wt,
                  const float* __restrict bias, bool relu, float* __restrict y) {
  if (HasAvx2()) {
    DenseForwardAvx2(x, in, out, wt, bias, relu, y);
  } else {
    DenseForwardBaseline(x, in, out, wt, bias, relu, y);
  }
}

}  // namespace shardplan
