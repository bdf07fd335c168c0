#ifndef SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_LEARNER_H_
#define SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_LEARNER_H_

// The losses of the reference's learn() and their gradients, for one episode at a time (the
// policy-value loss) and one batch of shards (the cost loss).
//
// The reference trains with IMPALA's V-trace. Its learner here is synchronous: the episodes of an
// update are sampled from the very parameters being updated, so every importance weight
// pi/mu is 1 (rho = c = 1 after clipping), and with gamma 1 and the reward only at the last step
// V-trace's target v_s is the Monte-Carlo return R of the episode and its advantage is R - V(s):
// advantage actor-critic. Per step t of an episode with return R and value V_t:
//   pg       = -log pi(a_t | s_t) (R - V_t)            (R - V_t held constant)
//   baseline = baseline_cost * 0.5 * (R - V_t)^2
//   entropy  = entropy_cost * sum_a pi(a | s_t) log pi(a | s_t)
// summed over the steps of the update's episodes, as compute_*_loss sum over T x B.
// The actions' predicted shard costs are inputs (the actors computed them without gradient), so
// the policy loss reaches the cost head only through the shared table MLP.

#include <cstddef>
#include <span>
#include <vector>

#include "lab/rl/autoshard/autoshard_params.h"
#include "nn/lstm.h"
#include "nn/trainable_mlp.h"
#include "planner/algorithms/autoshard/autoshard_episode.h"

namespace shardplan::autoshard {

struct LossWeights {
  double baseline_cost = 0.5;
  double entropy_cost = 0.001;
};

struct EpisodeLoss {
  double pg = 0.0;
  double baseline = 0.0;
  double entropy = 0.0;
  double total() const { return pg + baseline + entropy; }
};

// Activations kept between the forward and backward passes; reused across episodes.
struct LearnerScratch {
  MlpTape t_fc, s_fc, a_fc, p_fc, b_fc, c_fc;
  LstmTape core;
  std::vector<float> table_rows, fractions, core_input, policy_rows, d_policy_rows, d_core_out,
      d_core_in, d_latents, d_step, d_other, table_grads, accumulated, sums;
};

// What the learner's forward pass computed for an episode.
struct EpisodeOutputs {
  std::vector<float> logits;  // steps x devices
  std::vector<float> values;  // steps
};

// The episode of a task whose units are its tables (unit u = table u): `features` are the task's
// feature rows in task order (AutoShardTableFeatures), `episode` what RunAutoShardEpisode did
// with these parameters, `reward` its return. Adds the gradient of the episode's loss to `grad`
// (layout.total floats) and returns the loss. The advantage R - V holds V constant: V is this
// forward pass's values, or `advantage_values` (steps floats) when given, so that finite
// differences of the loss can hold it constant too. When `outputs` is not null it receives the
// learner's logits, which equal the episode's bit for bit, and values.
EpisodeLoss AccumulateEpisodeGradient(const ParamLayout& layout, std::span<const float> params,
                                      const TransposedParams& transposed,
                                      std::span<const float> features, int num_devices,
                                      const AutoShardEpisode& episode, double reward,
                                      const LossWeights& weights, std::span<float> grad,
                                      LearnerScratch& scratch, EpisodeOutputs* outputs,
                                      std::span<const float> advantage_values = {});

// One cost sample: a shard's feature rows (its tables in placement order) and its measured cost.
struct CostSample {
  std::vector<float> features;  // tables x kAutoShardFeatures
  float cost = 0.0f;
};

// The reference's compute_cost_loss on `batch`: mean over the samples of (c_fc(sum of t_fc
// latents) - cost)^2. Adds its gradient to `grad` and returns it.
double AccumulateCostGradient(const ParamLayout& layout, std::span<const float> params,
                              const TransposedParams& transposed,
                              std::span<const CostSample* const> batch, std::span<float> grad,
                              LearnerScratch& scratch);

}  // namespace shardplan::autoshard

#endif  // SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_LEARNER_H_
