#ifndef SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_NETWORK_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_NETWORK_H_

// The AutoShard network for inference, built from a Policy's tensors: the reference's
// Net.forward one step at a time (batch 1) and Net.cost_forward for one shard.

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nn/lstm.h"
#include "nn/mlp.h"
#include "planner/algorithms/autoshard/autoshard_architecture.h"
#include "planner/algorithms/autoshard/autoshard_features.h"
#include "planner/domain/policy.h"

namespace shardplan {

// OK when `policy` is an AutoShard policy this build can run: algorithm "autoshard",
// architecture kAutoShardArchitecture, exactly the tensors of AutoShardTensorSpecs with their
// shapes and sizes, finite values, and the constants AutoShardConfigFromConstants reads.
// FAILED_PRECONDITION naming the policy and the tensor or constant otherwise.
absl::Status CheckAutoShardPolicy(const Policy& policy);

class AutoShardNetwork {
 public:
  // CheckAutoShardPolicy first.
  static absl::StatusOr<AutoShardNetwork> FromPolicy(const Policy& policy);

  const AutoShardFeatureConfig& config() const { return config_; }
  const Lstm& core() const { return core_; }

  // t_fc: `rows` feature rows (kAutoShardFeatures each) to table latents (kAutoShardTableLatent).
  void TableLatents(const float* features, int rows, float* latents) const;
  // c_fc on a shard's latent sum (the reference's cost_forward, one shard).
  float PredictCost(const float* latent_sum) const;
  // s_fc on the step feature (tables assigned / tables): kAutoShardStepLatent floats.
  void StepLatent(float fraction, float* out) const;
  // a_fc on `rows` [cost, size] pairs: rows x (kAutoShardActionSize - kAutoShardTableLatent).
  void ActionOther(const float* other, int rows, float* out) const;
  // p_fc on `rows` policy inputs (kAutoShardPolicyInput each): one logit per row.
  void PolicyLogits(const float* inputs, int rows, float* logits) const;

 private:
  AutoShardNetwork(AutoShardFeatureConfig config, Mlp t_fc, Mlp s_fc, Mlp a_fc, Lstm core, Mlp p_fc,
                   Mlp c_fc);
  void Run(const Mlp& mlp, const float* in, int rows, float* out) const;

  AutoShardFeatureConfig config_;
  Mlp t_fc_, s_fc_, a_fc_;
  Lstm core_;
  Mlp p_fc_, c_fc_;
  mutable std::vector<float> scratch_;  // per network copy: a network serves one Run at a time
};

// The policy-head input of one device, shared with the trainer so both compute it alike:
// action = [shard latent sum + dummy latent, a_fc output], row = [state, action, state * action].
void AutoShardPolicyRow(const float* state, const float* shard_sum, const float* dummy,
                        const float* action_other, float* row);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_NETWORK_H_
