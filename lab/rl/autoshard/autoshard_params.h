#ifndef SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_PARAMS_H_
#define SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_PARAMS_H_

// The AutoShard network's parameters as one flat float vector (what Adam, the gradient and the
// checkpoint work on), module by module in torch's state_dict order: t_fc, s_fc, a_fc, core,
// p_fc, b_fc, c_fc (planner/algorithms/autoshard/autoshard_architecture.h).

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "nn/lstm.h"
#include "nn/trainable_mlp.h"
#include "planner/algorithms/autoshard/autoshard_features.h"
#include "planner/domain/policy.h"

namespace shardplan::autoshard {

struct ParamLayout {
  ParamLayout();

  MlpShape t_fc, s_fc, a_fc;
  LstmShape core;
  MlpShape p_fc, b_fc, c_fc;
  int64_t t_fc_at = 0, s_fc_at = 0, a_fc_at = 0, core_at = 0, p_fc_at = 0, b_fc_at = 0, c_fc_at = 0,
          total = 0;
};

// A module's slice of the flat vector.
template <typename T>
std::span<T> Slice(std::span<T> all, int64_t at, int64_t size) {
  return all.subspan(static_cast<size_t>(at), static_cast<size_t>(size));
}

// torch's default init of every module (nn.Linear, nn.LSTM), drawn from `rng` in state_dict order.
std::vector<float> InitAutoShardParams(const ParamLayout& layout, std::mt19937_64& rng);

// The weights transposed for MlpForward, per MLP; Update after every optimiser step.
struct TransposedParams {
  TransposedWeights t_fc, s_fc, a_fc, p_fc, b_fc, c_fc;
  void Update(const ParamLayout& layout, std::span<const float> params);
};

// The policy of `params` with `config`'s constants, named by the tensor names of the reference.
Policy AutoShardPolicyFromParams(const ParamLayout& layout, std::span<const float> params,
                                 const AutoShardFeatureConfig& config);

}  // namespace shardplan::autoshard

#endif  // SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_PARAMS_H_
