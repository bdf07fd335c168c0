#include "nn/adam.h"

#include <cmath>
#include <utility>

namespace shardplan {

Adam::Adam(int64_t num_params, AdamOptions options)
    : options_(options), m_(num_params, 0.0f), v_(num_params, 0.0f) {}

void Adam::Step(std::span<float> params, std::span<const float> grad) {
  ++steps_;
  const double t = static_cast<double>(steps_);
  const float step_size =
      static_cast<float>(options_.lr / (1.0 - std::pow(static_cast<double>(options_.beta1), t)));
  const float correction2_sqrt =
      static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(options_.beta2), t)));
  const float b1 = 1.0f - options_.beta1;
  const float b2 = options_.beta2;
  const float one_minus_b2 = 1.0f - options_.beta2;
  const float eps = options_.eps;
  float* __restrict p = params.data();
  float* __restrict m = m_.data();
  float* __restrict v = v_.data();
  const float* __restrict g = grad.data();
  const size_t n = m_.size();
  for (size_t i = 0; i < n; ++i) {
    m[i] += b1 * (g[i] - m[i]);
    v[i] = v[i] * b2 + one_minus_b2 * g[i] * g[i];
    p[i] -= step_size * m[i] / (std::sqrt(v[i]) / correction2_sqrt + eps);
  }
}

bool Adam::Restore(std::vector<float> m, std::vector<float> v, int64_t steps) {
  if (m.size() != m_.size() || v.size() != v_.size() || steps < 0) return false;
  m_ = std::move(m);
  v_ = std::move(v);
  steps_ = steps;
  return true;
}

}  // namespace shardplan
