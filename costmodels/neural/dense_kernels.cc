#include "costmodels/neural/dense_kernels.h"

#include <algorithm>
#include <cstddef>

namespace shardplan {

void TransposeWeights(const float* weight, int in, int out, float* wt) {
  for (int o = 0; o < out; ++o) {
    for (int i = 0; i < in; ++i) {
      wt[static_cast<size_t>(i) * out + o] = weight[static_cast<size_t>(o) * in + i];
    }
  }
}

void DenseForward(const float* __restrict x, int in, int out, const float* __restrict wt,
                  const float* __restrict bias, bool relu, float* __restrict y) {
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

}  // namespace shardplan
