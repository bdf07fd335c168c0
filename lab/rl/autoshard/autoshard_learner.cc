#include "lab/rl/autoshard/autoshard_learner.h"

#include <algorithm>
#include <cmath>

#include "planner/algorithms/autoshard/autoshard_architecture.h"
#include "planner/algorithms/autoshard/autoshard_network.h"

namespace shardplan::autoshard {
namespace {

constexpr int kF = kAutoShardFeatures;
constexpr int kT = kAutoShardTableLatent;
constexpr int kS = kAutoShardCoreSize;
constexpr int kOther = kAutoShardActionSize - kAutoShardTableLatent;
constexpr int kRow = kAutoShardPolicyInput;

template <typename T>
T* Sized(std::vector<T>& buffer, size_t size) {
  buffer.assign(size, T{});
  return buffer.data();
}

}  // namespace

EpisodeLoss AccumulateEpisodeGradient(const ParamLayout& layout, std::span<const float> params,
                                      const TransposedParams& transposed,
                                      std::span<const float> features, int num_devices,
                                      const AutoShardEpisode& episode, double reward,
                                      const LossWeights& weights, std::span<float> grad,
                                      LearnerScratch& scratch, EpisodeOutputs* outputs,
                                      std::span<const float> advantage_values) {
  const int n = static_cast<int>(episode.order.size());
  const int k_devices = num_devices;
  const int actions = n * k_devices;
  const auto t_params = Slice(params, layout.t_fc_at, layout.t_fc.num_params());
  const auto s_params = Slice(params, layout.s_fc_at, layout.s_fc.num_params());
  const auto a_params = Slice(params, layout.a_fc_at, layout.a_fc.num_params());
  const auto core_params = Slice(params, layout.core_at, layout.core.num_params());
  const auto p_params = Slice(params, layout.p_fc_at, layout.p_fc.num_params());
  const auto b_params = Slice(params, layout.b_fc_at, layout.b_fc.num_params());

  // Forward. Table latents in placement order, the dummy's (zero row) last.
  float* rows = Sized(scratch.table_rows, static_cast<size_t>(n + 1) * kF);
  for (int t = 0; t < n; ++t) {
    std::copy_n(features.data() + episode.order[t] * kF, kF, rows + static_cast<size_t>(t) * kF);
  }
  MlpForward(layout.t_fc, t_params, transposed.t_fc, rows, n + 1, scratch.t_fc);
  const float* latents = scratch.t_fc.outputs.back().data();
  const float* dummy = latents + static_cast<size_t>(n) * kT;

  float* fractions = Sized(scratch.fractions, n);
  for (int t = 0; t < n; ++t) {
    fractions[t] = static_cast<float>(static_cast<double>(t) / static_cast<double>(n));
  }
  MlpForward(layout.s_fc, s_params, transposed.s_fc, fractions, n, scratch.s_fc);
  const float* steps = scratch.s_fc.outputs.back().data();

  float* core_in = Sized(scratch.core_input, static_cast<size_t>(n) * kS);
  for (int t = 0; t < n; ++t) {
    std::copy_n(latents + static_cast<size_t>(t) * kT, kT, core_in + static_cast<size_t>(t) * kS);
    std::copy_n(steps + static_cast<size_t>(t) * kAutoShardStepLatent, kAutoShardStepLatent,
                core_in + static_cast<size_t>(t) * kS + kT);
  }
  LstmForward(layout.core, core_params, core_in, n, scratch.core);
  const float* states = LstmOutputs(scratch.core);

  MlpForward(layout.b_fc, b_params, transposed.b_fc, states, n, scratch.b_fc);
  const float* values = scratch.b_fc.outputs.back().data();

  MlpForward(layout.a_fc, a_params, transposed.a_fc, episode.action_other.data(), actions,
             scratch.a_fc);
  const float* others = scratch.a_fc.outputs.back().data();

  float* policy_rows = Sized(scratch.policy_rows, static_cast<size_t>(actions) * kRow);
  float* sums = Sized(scratch.sums, static_cast<size_t>(k_devices) * kT);
  for (int t = 0; t < n; ++t) {
    for (int d = 0; d < k_devices; ++d) {
      const size_t a = static_cast<size_t>(t) * k_devices + d;
      AutoShardPolicyRow(states + static_cast<size_t>(t) * kS, sums + static_cast<size_t>(d) * kT,
                         dummy, others + a * kOther, policy_rows + a * kRow);
    }
    float* sum = sums + static_cast<size_t>(episode.devices[t]) * kT;
    for (int i = 0; i < kT; ++i) sum[i] += latents[static_cast<size_t>(t) * kT + i];
  }
  MlpForward(layout.p_fc, p_params, transposed.p_fc, policy_rows, actions, scratch.p_fc);
  const float* logits = scratch.p_fc.outputs.back().data();
  if (outputs != nullptr) {
    outputs->logits.assign(logits, logits + actions);
    outputs->values.assign(values, values + n);
  }

  // Losses and their gradients with respect to the logits and values.
  EpisodeLoss loss;
  float* d_logits = OutputGradient(layout.p_fc, actions, scratch.p_fc);
  float* d_values = OutputGradient(layout.b_fc, n, scratch.b_fc);
  std::vector<double> log_pi(k_devices);
  for (int t = 0; t < n; ++t) {
    const float* z = logits + static_cast<size_t>(t) * k_devices;
    const double top = *std::max_element(z, z + k_devices);
    double norm = 0.0;
    for (int d = 0; d < k_devices; ++d) norm += std::exp(static_cast<double>(z[d]) - top);
    const double log_norm = top + std::log(norm);
    double neg_entropy = 0.0;
    for (int d = 0; d < k_devices; ++d) {
      log_pi[d] = static_cast<double>(z[d]) - log_norm;
      neg_entropy += std::exp(log_pi[d]) * log_pi[d];
    }
    const double value = static_cast<double>(values[t]);
    const double advantage =
        reward - (advantage_values.empty() ? value : static_cast<double>(advantage_values[t]));
    const int chosen = episode.devices[t];
    loss.pg += -log_pi[chosen] * advantage;
    loss.baseline += weights.baseline_cost * 0.5 * (reward - value) * (reward - value);
    loss.entropy += weights.entropy_cost * neg_entropy;
    for (int d = 0; d < k_devices; ++d) {
      const double pi = std::exp(log_pi[d]);
      const double d_pg = advantage * (pi - (d == chosen ? 1.0 : 0.0));
      const double d_entropy = weights.entropy_cost * pi * (log_pi[d] - neg_entropy);
      d_logits[static_cast<size_t>(t) * k_devices + d] = static_cast<float>(d_pg + d_entropy);
    }
    d_values[t] = static_cast<float>(-weights.baseline_cost * (reward - value));
  }

  // Backward: policy head, then the state and action halves of its rows.
  float* d_rows = Sized(scratch.d_policy_rows, static_cast<size_t>(actions) * kRow);
  MlpBackward(layout.p_fc, p_params, policy_rows, actions, scratch.p_fc,
              Slice(grad, layout.p_fc_at, layout.p_fc.num_params()), d_rows);
  float* d_states = Sized(scratch.d_core_out, static_cast<size_t>(n) * kS);
  float* d_other = OutputGradient(layout.a_fc, actions, scratch.a_fc);
  float* table_grads = Sized(scratch.table_grads, static_cast<size_t>(actions) * kT);
  for (int t = 0; t < n; ++t) {
    const float* state = states + static_cast<size_t>(t) * kS;
    float* d_state = d_states + static_cast<size_t>(t) * kS;
    for (int d = 0; d < k_devices; ++d) {
      const size_t a = static_cast<size_t>(t) * k_devices + d;
      const float* row = policy_rows + a * kRow;
      const float* d_row = d_rows + a * kRow;
      for (int i = 0; i < kS; ++i) {
        const float d_product = d_row[2 * kS + i];
        d_state[i] += d_row[i] + d_product * row[kS + i];
        const float d_action = d_row[kS + i] + d_product * state[i];
        if (i < kT) {
          table_grads[a * kT + i] = d_action;
        } else {
          d_other[a * kOther + (i - kT)] = d_action;
        }
      }
    }
  }
  MlpBackward(layout.a_fc, a_params, episode.action_other.data(), actions, scratch.a_fc,
              Slice(grad, layout.a_fc_at, layout.a_fc.num_params()), nullptr);

  // Value head into the states; then through time.
  std::vector<float>& d_states_b = scratch.accumulated;
  d_states_b.assign(static_cast<size_t>(n) * kS, 0.0f);
  MlpBackward(layout.b_fc, b_params, states, n, scratch.b_fc,
              Slice(grad, layout.b_fc_at, layout.b_fc.num_params()), d_states_b.data());
  for (size_t i = 0; i < d_states_b.size(); ++i) d_states[i] += d_states_b[i];
  float* d_core_in = Sized(scratch.d_core_in, static_cast<size_t>(n) * kS);
  LstmBackward(layout.core, core_params, core_in, n, scratch.core, d_states,
               Slice(grad, layout.core_at, layout.core.num_params()), d_core_in);

  float* d_step = OutputGradient(layout.s_fc, n, scratch.s_fc);
  float* d_latents = Sized(scratch.d_latents, static_cast<size_t>(n + 1) * kT);
  for (int t = 0; t < n; ++t) {
    std::copy_n(d_core_in + static_cast<size_t>(t) * kS, kT,
                d_latents + static_cast<size_t>(t) * kT);
    std::copy_n(d_core_in + static_cast<size_t>(t) * kS + kT, kAutoShardStepLatent,
                d_step + static_cast<size_t>(t) * kAutoShardStepLatent);
  }
  MlpBackward(layout.s_fc, s_params, fractions, n, scratch.s_fc,
              Slice(grad, layout.s_fc_at, layout.s_fc.num_params()), nullptr);

  // The table placed at step s sits in its device's shard for every later step: it receives
  // that device's table-part gradients of steps s+1..n-1 (suffix sums); the dummy, all of them.
  std::vector<float> suffix(static_cast<size_t>(k_devices) * kT, 0.0f);
  for (int t = n - 1; t >= 0; --t) {
    const float* from = suffix.data() + static_cast<size_t>(episode.devices[t]) * kT;
    float* to = d_latents + static_cast<size_t>(t) * kT;
    for (int i = 0; i < kT; ++i) to[i] += from[i];
    for (int d = 0; d < k_devices; ++d) {
      const float* g = table_grads + (static_cast<size_t>(t) * k_devices + d) * kT;
      float* s = suffix.data() + static_cast<size_t>(d) * kT;
      for (int i = 0; i < kT; ++i) s[i] += g[i];
    }
  }
  float* d_dummy = d_latents + static_cast<size_t>(n) * kT;
  for (int d = 0; d < k_devices; ++d) {
    for (int i = 0; i < kT; ++i) d_dummy[i] += suffix[static_cast<size_t>(d) * kT + i];
  }
  std::copy_n(d_latents, static_cast<size_t>(n + 1) * kT,
              OutputGradient(layout.t_fc, n + 1, scratch.t_fc));
  MlpBackward(layout.t_fc, t_params, rows, n + 1, scratch.t_fc,
              Slice(grad, layout.t_fc_at, layout.t_fc.num_params()), nullptr);
  return loss;
}

double AccumulateCostGradient(const ParamLayout& layout, std::span<const float> params,
                              const TransposedParams& transposed,
                              std::span<const CostSample* const> batch, std::span<float> grad,
                              LearnerScratch& scratch) {
  const auto t_params = Slice(params, layout.t_fc_at, layout.t_fc.num_params());
  const auto c_params = Slice(params, layout.c_fc_at, layout.c_fc.num_params());
  const int b = static_cast<int>(batch.size());
  size_t total_rows = 0;
  for (const CostSample* sample : batch) total_rows += sample->features.size() / kF;
  float* rows = Sized(scratch.table_rows, total_rows * kF);
  size_t at = 0;
  for (const CostSample* sample : batch) {
    std::copy(sample->features.begin(), sample->features.end(), rows + at);
    at += sample->features.size();
  }
  MlpForward(layout.t_fc, t_params, transposed.t_fc, rows, static_cast<int>(total_rows),
             scratch.t_fc);
  const float* latents = scratch.t_fc.outputs.back().data();
  float* sums = Sized(scratch.sums, static_cast<size_t>(b) * kT);
  size_t row = 0;
  for (int s = 0; s < b; ++s) {
    const size_t count = batch[s]->features.size() / kF;
    for (size_t r = 0; r < count; ++r, ++row) {
      for (int i = 0; i < kT; ++i) sums[static_cast<size_t>(s) * kT + i] += latents[row * kT + i];
    }
  }
  MlpForward(layout.c_fc, c_params, transposed.c_fc, sums, b, scratch.c_fc);
  const float* predicted = scratch.c_fc.outputs.back().data();
  float* d_predicted = OutputGradient(layout.c_fc, b, scratch.c_fc);
  double loss = 0.0;
  for (int s = 0; s < b; ++s) {
    const double error = static_cast<double>(predicted[s]) - batch[s]->cost;
    loss += error * error;
    d_predicted[s] = static_cast<float>(2.0 * error / b);
  }
  float* d_sums = Sized(scratch.d_latents, static_cast<size_t>(b) * kT);
  MlpBackward(layout.c_fc, c_params, sums, b, scratch.c_fc,
              Slice(grad, layout.c_fc_at, layout.c_fc.num_params()), d_sums);
  float* d_rows = OutputGradient(layout.t_fc, static_cast<int>(total_rows), scratch.t_fc);
  row = 0;
  for (int s = 0; s < b; ++s) {
    const size_t count = batch[s]->features.size() / kF;
    for (size_t r = 0; r < count; ++r, ++row) {
      std::copy_n(d_sums + static_cast<size_t>(s) * kT, kT, d_rows + row * kT);
    }
  }
  MlpBackward(layout.t_fc, t_params, rows, static_cast<int>(total_rows), scratch.t_fc,
              Slice(grad, layout.t_fc_at, layout.t_fc.num_params()), nullptr);
  return loss / b;
}

}  // namespace shardplan::autoshard
