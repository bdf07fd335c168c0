#include "nn/dense_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

namespace shardplan {
namespace {

// The layer's outputs [first, out), written once and compiled twice below. Each output
// accumulates its inputs in index order whatever the vector width, so the AVX2 and the baseline
// code give bit-identical results (no FMA: neither target enables it, so nothing is contracted).
[[gnu::always_inline]] inline void DenseForwardBody(const float* __restrict x, int in, int out,
                                                    const float* __restrict wt,
                                                    const float* __restrict bias, bool relu,
                                                    float* __restrict y, int first = 0) {
  std::copy(bias + first, bias + out, y + first);
  for (int i = 0; i < in; ++i) {
    const float xi = x[i];
    const float* __restrict row = wt + static_cast<size_t>(i) * out;
    for (int o = first; o < out; ++o) y[o] += xi * row[o];
  }
  if (relu) {
    for (int o = first; o < out; ++o) y[o] = y[o] > 0.0f ? y[o] : 0.0f;
  }
}

// Output o0 alone (a head's single output), its sum held in a register: the generic body keeps
// y[o0] in memory and so adds a store-to-load round trip to each input's add (the chain is
// twice as long); the sum, in index order, is the same bit for bit.
[[gnu::always_inline]] inline void DenseForwardOneOutput(const float* __restrict x, int in, int out,
                                                         const float* __restrict wt,
                                                         const float* __restrict bias, bool relu,
                                                         float* __restrict y, int o0) {
  float sum = bias[o0];
  for (int i = 0; i < in; ++i) sum += x[i] * wt[static_cast<size_t>(i) * out + o0];
  y[o0] = relu && !(sum > 0.0f) ? 0.0f : sum;
}

// Outputs [o0, o0 + 8 * kRegs) with their sums held in kRegs registers across the whole input
// loop. The auto-vectorised body keeps y in memory and so chains every sum through a store and
// a reload per input; here each sum still adds its inputs in index order (bit-identical).
template <int kRegs>
[[gnu::target("avx2"), gnu::always_inline]] inline void DenseBlockAvx2(
    const float* __restrict x, int in, int out, const float* __restrict wt,
    const float* __restrict bias, bool relu, float* __restrict y, int o0) {
  __m256 acc[kRegs];
  for (int r = 0; r < kRegs; ++r) acc[r] = _mm256_loadu_ps(bias + o0 + 8 * r);
  for (int i = 0; i < in; ++i) {
    const __m256 xi = _mm256_set1_ps(x[i]);
    const float* __restrict row = wt + static_cast<size_t>(i) * out + o0;
    for (int r = 0; r < kRegs; ++r) {
      acc[r] = _mm256_add_ps(acc[r], _mm256_mul_ps(xi, _mm256_loadu_ps(row + 8 * r)));
    }
  }
  const __m256 zero = _mm256_setzero_ps();
  for (int r = 0; r < kRegs; ++r) {
    // max(acc, 0) returns 0 for NaN and -0, as `y > 0 ? y : 0` does.
    _mm256_storeu_ps(y + o0 + 8 * r, relu ? _mm256_max_ps(acc[r], zero) : acc[r]);
  }
}

[[gnu::target("avx2")]] void DenseForwardAvx2(const float* __restrict x, int in, int out,
                                                const float* __restrict wt,
                                                const float* __restrict bias, bool relu,
                                                float* __restrict y) {
  int o0 = 0;
  for (; o0 + 64 <= out; o0 += 64) DenseBlockAvx2<8>(x, in, out, wt, bias, relu, y, o0);
  for (; o0 + 32 <= out; o0 += 32) DenseBlockAvx2<4>(x, in, out, wt, bias, relu, y, o0);
  for (; o0 + 8 <= out; o0 += 8) DenseBlockAvx2<1>(x, in, out, wt, bias, relu, y, o0);
  // The last out % 8 outputs: a head's single output in a register, else the plain loop; the
  // same order either way.
  if (o0 + 1 == out) {
    DenseForwardOneOutput(x, in, out, wt, bias, relu, y, o0);
  } else if (o0 < out) {
    DenseForwardBody(x, in, out, wt, bias, relu, y, o0);
  }
}

void DenseForwardBaseline(const float* __restrict x, int in, int out,
                          const float* __restrict wt, const float* __restrict bias, bool relu,
                          float* __restrict y) {
  if (out == 1) {
    DenseForwardOneOutput(x, in, out, wt, bias, relu, y, 0);
  } else {
    DenseForwardBody(x, in, out, wt, bias, relu, y);
  }
}

}  // namespace

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

void TransposeWeights(const float* weight, int in, int out, float* wt) {
  for (int o = 0; o < out; ++o) {
    for (int i = 0; i < in; ++i) {
      wt[static_cast<size_t>(i) * out + o] = weight[static_cast<size_t>(o) * in + i];
    }
  }
}

void DenseForward(const float* __restrict x, int in, int out, const float* __restrict wt,
                  const float* __restrict bias, bool relu, float* __restrict y) {
  if (CpuHasAvx2()) {
    DenseForwardAvx2(x, in, out, wt, bias, relu, y);
  } else {
    DenseForwardBaseline(x, in, out, wt, bias, relu, y);
  }
}

}  // namespace shardplan
