#include "lab/rl/dreamshard/dreamshard_model.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/domain/table.h"

namespace shardplan::rl {
namespace {

constexpr int kL = kDreamShardLatent;
constexpr int kF = kDreamShardFeatures;

// Tapes of DreamShardWorkspace, one per forward pass a loss keeps for its backward pass.
enum Tape {
  kOverallTableTape,
  kOverallHeadTape,
  kKernelTableTape,
  kKernelHeadTape0,  // three heads
  kRlTableTape = kKernelHeadTape0 + 3,
  kRlCostTableTape,
  kRlHeadTape0,  // three heads
  kRlCostFcTape = kRlHeadTape0 + 3,
  kRlPolicyTape,
  kNumTapes
};

// The feature rows of `shards` (task, tables), one zero row for an empty shard, appended to
// `rows`; `first[s]`..`first[s+1]` are shard s's rows.
void GatherRows(std::span<const std::vector<float>> features,
                std::span<const std::pair<int, const ShardTables*>> shards,
                std::vector<float>& rows, std::vector<size_t>& first) {
  rows.clear();
  first.assign(1, 0);
  for (const auto& [task, tables] : shards) {
    if (tables->empty()) {
      rows.insert(rows.end(), kF, 0.0f);
    } else {
      for (int t : *tables) {
        const float* row = &features[task][static_cast<size_t>(t) * kF];
        rows.insert(rows.end(), row, row + kF);
      }
    }
    first.push_back(rows.size() / kF);
  }
}

// Sums of the latent rows of every shard, in row order from zeros (index_add_).
void ShardSums(const float* latents, const std::vector<size_t>& first, std::vector<float>& sums) {
  const size_t n = first.size() - 1;
  sums.assign(n * kL, 0.0f);
  for (size_t s = 0; s < n; ++s) {
    float* sum = &sums[s * kL];
    for (size_t r = first[s]; r < first[s + 1]; ++r) {
      for (int k = 0; k < kL; ++k) sum[k] += latents[r * kL + k];
    }
  }
}

// The gradient of every latent row from its shard sum's gradient.
void ScatterToRows(const float* d_sums, const std::vector<size_t>& first, float* d_rows) {
  for (size_t s = 0; s + 1 < first.size(); ++s) {
    for (size_t r = first[s]; r < first[s + 1]; ++r) {
      for (int k = 0; k < kL; ++k) d_rows[r * kL + k] += d_sums[s * kL + k];
    }
  }
}

// table_fc's backward from the gradients of its output rows.
void TableBackward(int mlp, std::span<const float> params, const std::vector<float>& rows,
                   const std::vector<float>& d_rows, MlpTape& tape, std::span<float> grad) {
  const DreamShardLayout& layout = Layout();
  const int n = static_cast<int>(rows.size() / kF);
  float* out = OutputGradient(layout.shape(mlp), n, tape);
  std::copy(d_rows.begin(), d_rows.end(), out);
  MlpBackward(layout.shape(mlp), layout.Of(mlp, params), rows.data(), n, tape, layout.Of(mlp, grad),
              nullptr);
}

void Forward(int mlp, std::span<const float> params, const DreamShardWorkspace& ws,
             const float* input, int batch, MlpTape& tape) {
  MlpForward(Layout().shape(mlp), Layout().Of(mlp, params), ws.transposed[mlp], input, batch, tape);
}

}  // namespace

DreamShardLayout::DreamShardLayout() {
  offsets_.push_back(0);
  for (const DreamShardMlpSpec& spec : DreamShardMlpSpecs()) {
    shapes_.emplace_back(spec.sizes, spec.relu_on_output);
    offsets_.push_back(offsets_.back() + shapes_.back().num_params());
  }
}

const DreamShardLayout& Layout() {
  static const DreamShardLayout layout;
  return layout;
}

void InitDreamShardParams(std::mt19937_64& rng, std::span<float> params) {
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    InitParams(Layout().shape(m), rng, Layout().Of(m, params));
  }
}

Policy DreamShardPolicyFromParams(std::span<const float> params,
                                  std::span<const double> missing_bins) {
  Policy policy;
  policy.algorithm = kDreamShardAlgorithm;
  policy.architecture = kDreamShardArchitecture;
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    const MlpShape& shape = Layout().shape(m);
    const std::span<const float> sub = Layout().Of(m, params);
    for (int l = 0; l < shape.num_layers(); ++l) {
      const uint32_t in = static_cast<uint32_t>(shape.in(l));
      const uint32_t out = static_cast<uint32_t>(shape.out(l));
      const float* w = sub.data() + shape.weight_offset(l);
      const float* b = sub.data() + shape.bias_offset(l);
      policy.tensors[DreamShardWeightName(m, l)] = PolicyTensor{{out, in}, {w, w + out * in}};
      policy.tensors[DreamShardBiasName(m, l)] = PolicyTensor{{out}, {b, b + out}};
    }
  }
  for (int j = 0; j < kNumAccessBins; ++j) {
    policy.constants[MissingAccessBinConstant(j)] =
        static_cast<size_t>(j) < missing_bins.size() ? missing_bins[j] : 0.0;
  }
  return policy;
}

double DreamShardCostLoss(std::span<const float> params,
                          std::span<const std::vector<float>> features,
                          std::span<const OverallSample* const> overall,
                          std::span<const KernelSample* const> kernel, DreamShardWorkspace& ws,
                          std::span<float> grad) {
  const DreamShardLayout& layout = Layout();
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    ws.transposed[m].Update(layout.shape(m), layout.Of(m, params));
  }
  if (ws.tapes.size() < kNumTapes) ws.tapes.resize(kNumTapes);
  double loss = 0.0;
  std::vector<std::pair<int, const ShardTables*>> shards;
  std::vector<size_t> first;

  if (!overall.empty()) {  // overall_forward: overall_fc(max over devices of shard sums)
    std::vector<size_t> sample_first{0};
    shards.clear();
    for (const OverallSample* sample : overall) {
      for (const ShardTables& shard : sample->shards) shards.emplace_back(sample->task, &shard);
      sample_first.push_back(shards.size());
    }
    GatherRows(features, shards, ws.rows, first);
    const int num_rows = static_cast<int>(ws.rows.size() / kF);
    MlpTape& table_tape = ws.tapes[kOverallTableTape];
    Forward(kTableFc, params, ws, ws.rows.data(), num_rows, table_tape);
    ShardSums(table_tape.outputs.back().data(), first, ws.sums);
    const int batch = static_cast<int>(overall.size());
    std::vector<float> max_latent(static_cast<size_t>(batch) * kL);
    std::vector<size_t> argmax(max_latent.size());
    for (int b = 0; b < batch; ++b) {
      for (int k = 0; k < kL; ++k) {
        size_t best = sample_first[b];
        for (size_t s = sample_first[b] + 1; s < sample_first[b + 1]; ++s) {
          if (ws.sums[s * kL + k] > ws.sums[best * kL + k]) best = s;
        }
        argmax[b * kL + k] = best;
        max_latent[b * kL + k] = ws.sums[best * kL + k];
      }
    }
    MlpTape& head_tape = ws.tapes[kOverallHeadTape];
    Forward(kOverallFc, params, ws, max_latent.data(), batch, head_tape);
    const std::vector<float>& pred = head_tape.outputs.back();
    float* d_pred = OutputGradient(layout.shape(kOverallFc), batch, head_tape);
    double sq = 0.0;
    for (int b = 0; b < batch; ++b) {
      const double diff = static_cast<double>(pred[b]) - overall[b]->cost;
      sq += diff * diff;
      d_pred[b] = static_cast<float>(2.0 * diff / batch);
    }
    loss += sq / batch;
    std::vector<float> d_max(max_latent.size());
    MlpBackward(layout.shape(kOverallFc), layout.Of(kOverallFc, params), max_latent.data(), batch,
                head_tape, layout.Of(kOverallFc, grad), d_max.data());
    std::vector<float> d_sums(ws.sums.size(), 0.0f);
    for (size_t i = 0; i < d_max.size(); ++i) d_sums[argmax[i] * kL + i % kL] += d_max[i];
    ws.grads.assign(static_cast<size_t>(num_rows) * kL, 0.0f);
    ScatterToRows(d_sums.data(), first, ws.grads.data());
    TableBackward(kTableFc, params, ws.rows, ws.grads, table_tape, grad);
  }

  if (!kernel.empty()) {  // kernel_forward: three heads on each shard's latent sum
    shards.clear();
    for (const KernelSample* sample : kernel) shards.emplace_back(sample->task, &sample->tables);
    GatherRows(features, shards, ws.rows2, first);
    const int num_rows = static_cast<int>(ws.rows2.size() / kF);
    MlpTape& table_tape = ws.tapes[kKernelTableTape];
    Forward(kTableFc, params, ws, ws.rows2.data(), num_rows, table_tape);
    ShardSums(table_tape.outputs.back().data(), first, ws.sums);
    const int batch = static_cast<int>(kernel.size());
    std::vector<float> d_sums(ws.sums.size(), 0.0f);
    std::vector<float> d_head(ws.sums.size());
    for (int h = 0; h < kDreamShardCosts; ++h) {
      const int mlp = kForwardFc + h;
      MlpTape& tape = ws.tapes[kKernelHeadTape0 + h];
      Forward(mlp, params, ws, ws.sums.data(), batch, tape);
      const std::vector<float>& pred = tape.outputs.back();
      float* d_pred = OutputGradient(layout.shape(mlp), batch, tape);
      double sq = 0.0;
      for (int b = 0; b < batch; ++b) {
        const double diff = static_cast<double>(pred[b]) - kernel[b]->targets[h];
        sq += diff * diff;
        d_pred[b] = static_cast<float>(2.0 * diff / batch);
      }
      loss += sq / batch;
      MlpBackward(layout.shape(mlp), layout.Of(mlp, params), ws.sums.data(), batch, tape,
                  layout.Of(mlp, grad), d_head.data());
      for (size_t i = 0; i < d_sums.size(); ++i) d_sums[i] += d_head[i];
    }
    ws.grads.assign(static_cast<size_t>(num_rows) * kL, 0.0f);
    ScatterToRows(d_sums.data(), first, ws.grads.data());
    TableBackward(kTableFc, params, ws.rows2, ws.grads, table_tape, grad);
  }
  return loss;
}

double DreamShardRlLoss(std::span<const float> params, std::span<const float> task_features,
                        std::span<const RlEpisode> episodes, double entropy_weight,
                        DreamShardWorkspace& ws, std::span<float> grad,
                        std::vector<float>* logits_out) {
  const DreamShardLayout& layout = Layout();
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    ws.transposed[m].Update(layout.shape(m), layout.Of(m, params));
  }
  if (ws.tapes.size() < kNumTapes) ws.tapes.resize(kNumTapes);
  // The task's rows and one zero row (an empty shard), through both table networks.
  const int num_tables = static_cast<int>(task_features.size() / kF);
  const int zero_row = num_tables;
  ws.rows.assign(task_features.begin(), task_features.end());
  ws.rows.insert(ws.rows.end(), kF, 0.0f);
  MlpTape& rl_tape = ws.tapes[kRlTableTape];
  MlpTape& cost_tape = ws.tapes[kRlCostTableTape];
  Forward(kRlTableFc, params, ws, ws.rows.data(), num_tables + 1, rl_tape);
  Forward(kTableFc, params, ws, ws.rows.data(), num_tables + 1, cost_tape);
  const std::vector<float>& rl_latents = rl_tape.outputs.back();
  const std::vector<float>& cost_latents = cost_tape.outputs.back();

  // Every (step, legal device) pair: its shard's latent sums, as the episode summed them.
  struct Pair {
    size_t episode;
    int32_t device;
    uint32_t prefix;
  };
  std::vector<Pair> pairs;
  std::vector<float> cost_sums, policy_input;
  std::vector<size_t> step_first{0};
  for (size_t e = 0; e < episodes.size(); ++e) {
    const RlEpisode& episode = episodes[e];
    // cum[d][k]: the sum of the first k latents of device d's shard (k = 0: the zero row's).
    std::vector<std::vector<float>> cum_cost(episode.shards.size()), cum_rl(episode.shards.size());
    for (size_t d = 0; d < episode.shards.size(); ++d) {
      const ShardTables& shard = episode.shards[d];
      cum_cost[d].assign((shard.size() + 1) * kL, 0.0f);
      cum_rl[d].assign((shard.size() + 1) * kL, 0.0f);
      for (size_t k = 1; k <= shard.size(); ++k) {
        const size_t row = static_cast<size_t>(shard[k - 1]) * kL;
        for (int i = 0; i < kL; ++i) {
          cum_cost[d][k * kL + i] =
              (k == 1 ? 0.0f : cum_cost[d][(k - 1) * kL + i]) + cost_latents[row + i];
          cum_rl[d][k * kL + i] =
              (k == 1 ? 0.0f : cum_rl[d][(k - 1) * kL + i]) + rl_latents[row + i];
        }
      }
      std::copy_n(&cost_latents[static_cast<size_t>(zero_row) * kL], kL, cum_cost[d].begin());
      std::copy_n(&rl_latents[static_cast<size_t>(zero_row) * kL], kL, cum_rl[d].begin());
    }
    for (const RlStep& step : episode.steps) {
      for (size_t j = 0; j < step.legal.size(); ++j) {
        const int32_t d = step.legal[j];
        const uint32_t k = step.prefix[j];
        pairs.push_back(Pair{e, d, k});
        const float* c = &cum_cost[d][static_cast<size_t>(k) * kL];
        const float* r = &cum_rl[d][static_cast<size_t>(k) * kL];
        cost_sums.insert(cost_sums.end(), c, c + kL);
        policy_input.insert(policy_input.end(), r, r + kL);
        policy_input.insert(policy_input.end(), kL, 0.0f);  // the cost latent, below
      }
      step_first.push_back(pairs.size());
    }
  }
  const int n = static_cast<int>(pairs.size());
  const size_t num_steps = step_first.size() - 1;
  if (n == 0) return 0.0;

  // The shard costs (detached), then cost_fc and policy_net.
  std::vector<float> costs(static_cast<size_t>(n) * kDreamShardCosts);
  for (int h = 0; h < kDreamShardCosts; ++h) {
    MlpTape& tape = ws.tapes[kRlHeadTape0 + h];
    Forward(kForwardFc + h, params, ws, cost_sums.data(), n, tape);
    for (int p = 0; p < n; ++p)
      costs[static_cast<size_t>(p) * kDreamShardCosts + h] = tape.outputs.back()[p];
  }
  MlpTape& cost_fc_tape = ws.tapes[kRlCostFcTape];
  Forward(kCostFc, params, ws, costs.data(), n, cost_fc_tape);
  for (int p = 0; p < n; ++p) {
    std::copy_n(&cost_fc_tape.outputs.back()[static_cast<size_t>(p) * kL], kL,
                &policy_input[static_cast<size_t>(p) * 2 * kL + kL]);
  }
  MlpTape& policy_tape = ws.tapes[kRlPolicyTape];
  Forward(kPolicyNet, params, ws, policy_input.data(), n, policy_tape);
  const std::vector<float> logits(policy_tape.outputs.back().begin(),
                                  policy_tape.outputs.back().begin() + n);
  if (logits_out != nullptr) *logits_out = logits;

  float* d_logits = OutputGradient(layout.shape(kPolicyNet), n, policy_tape);
  double policy_loss = 0.0, entropy = 0.0;
  size_t s = 0;
  for (const RlEpisode& episode : episodes) {
    for (const RlStep& step : episode.steps) {
      const size_t a = step_first[s], b = step_first[s + 1];
      double max_logit = logits[a];
      for (size_t p = a; p < b; ++p)
        max_logit = std::max(max_logit, static_cast<double>(logits[p]));
      double z = 0.0;
      for (size_t p = a; p < b; ++p) z += std::exp(logits[p] - max_logit);
      const double log_z = max_logit + std::log(z);
      double plogp = 0.0;
      for (size_t p = a; p < b; ++p) {
        const double logp = logits[p] - log_z;
        plogp += std::exp(logp) * logp;
      }
      policy_loss += -(logits[a + step.action] - log_z) * step.reward;
      entropy += plogp;
      for (size_t p = a; p < b; ++p) {
        const double logp = logits[p] - log_z;
        const double prob = std::exp(logp);
        const double chosen = p == a + static_cast<size_t>(step.action) ? 1.0 : 0.0;
        const double d = step.reward * (prob - chosen) + entropy_weight * prob * (logp - plogp);
        d_logits[p] = static_cast<float>(d / static_cast<double>(num_steps));
      }
      ++s;
    }
  }
  std::vector<float> d_input(policy_input.size());
  MlpBackward(layout.shape(kPolicyNet), layout.Of(kPolicyNet, params), policy_input.data(), n,
              policy_tape, layout.Of(kPolicyNet, grad), d_input.data());
  float* d_cost_latent = OutputGradient(layout.shape(kCostFc), n, cost_fc_tape);
  for (int p = 0; p < n; ++p) {
    std::copy_n(&d_input[static_cast<size_t>(p) * 2 * kL + kL], kL,
                d_cost_latent + static_cast<size_t>(p) * kL);
  }
  MlpBackward(layout.shape(kCostFc), layout.Of(kCostFc, params), costs.data(), n, cost_fc_tape,
              layout.Of(kCostFc, grad), nullptr);
  std::vector<float> d_rows(static_cast<size_t>(num_tables + 1) * kL, 0.0f);
  for (int p = 0; p < n; ++p) {
    const Pair& pair = pairs[p];
    const float* d = &d_input[static_cast<size_t>(p) * 2 * kL];
    if (pair.prefix == 0) {
      for (int i = 0; i < kL; ++i) d_rows[static_cast<size_t>(zero_row) * kL + i] += d[i];
      continue;
    }
    const ShardTables& shard = episodes[pair.episode].shards[pair.device];
    for (uint32_t k = 0; k < pair.prefix; ++k) {
      float* row = &d_rows[static_cast<size_t>(shard[k]) * kL];
      for (int i = 0; i < kL; ++i) row[i] += d[i];
    }
  }
  TableBackward(kRlTableFc, params, ws.rows, d_rows, rl_tape, grad);
  return (policy_loss + entropy_weight * entropy) / static_cast<double>(num_steps);
}

}  // namespace shardplan::rl
