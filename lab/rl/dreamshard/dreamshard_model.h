#ifndef SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_MODEL_H_
#define SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_MODEL_H_

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "nn/trainable_mlp.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/policy.h"

namespace shardplan::rl {

// DreamShard's network as one flat parameter vector (the sub-networks of DreamShardMlpSpecs in
// the reference's state_dict order, each in nn/trainable_mlp.h's layout) and its two losses
// with their gradients, for the trainer.
class DreamShardLayout {
 public:
  DreamShardLayout();
  const MlpShape& shape(int mlp) const { return shapes_[mlp]; }
  int64_t num_params() const { return offsets_.back(); }
  std::span<float> Of(int mlp, std::span<float> all) const {
    return all.subspan(offsets_[mlp], shapes_[mlp].num_params());
  }
  std::span<const float> Of(int mlp, std::span<const float> all) const {
    return all.subspan(offsets_[mlp], shapes_[mlp].num_params());
  }

 private:
  std::vector<MlpShape> shapes_;
  std::vector<int64_t> offsets_;  // per sub-network, then the total
};
const DreamShardLayout& Layout();

// torch.nn.Linear's init for every layer, sub-network by sub-network (nn InitParams).
void InitDreamShardParams(std::mt19937_64& rng, std::span<float> params);

// The policy of `params` (tensors named as the reference's state_dict, shapes as torch's) with
// the missing-histogram constants; name, version and hardware profile left to the caller.
Policy DreamShardPolicyFromParams(std::span<const float> params,
                                  std::span<const double> missing_bins);

// A shard of one task: its table indices in the order they joined (empty: one zero row).
using ShardTables = std::vector<int>;

// A measured device (the buffer's add_kernel): targets in kernel_forward's order.
struct KernelSample {
  int task = 0;
  ShardTables tables;
  std::array<float, kDreamShardCosts> targets{};
};
// A measured plan (add_overall): every device's shard and the plan's cost.
struct OverallSample {
  int task = 0;
  std::vector<ShardTables> shards;
  float cost = 0.0f;
};

// One step of an RL episode: for every legal device, how many tables its shard held (a prefix
// of the episode's final shard of that device); the chosen legal index; the normalised reward.
struct RlStep {
  std::vector<int32_t> legal;
  std::vector<uint32_t> prefix;
  int action = 0;
  float reward = 0.0f;
};
struct RlEpisode {
  std::vector<ShardTables> shards;  // final, per device
  std::vector<RlStep> steps;
};

// Scratch reused across loss calls (tapes, transposed weights).
struct DreamShardWorkspace {
  std::array<TransposedWeights, kNumDreamShardMlps> transposed;
  std::vector<MlpTape> tapes = std::vector<MlpTape>(12);
  std::vector<float> rows, rows2, sums, grads, scratch;
};

// train_cost's loss on one batch: MSE of overall_forward on `overall` plus the MSE of each of
// kernel_forward's three heads on `kernel`; adds its gradient to `grad`. `features[t]`: the
// DreamShardFeatures of task t. Returns the loss (the sum of the four means).
double DreamShardCostLoss(std::span<const float> params,
                          std::span<const std::vector<float>> features,
                          std::span<const OverallSample* const> overall,
                          std::span<const KernelSample* const> kernel, DreamShardWorkspace& ws,
                          std::span<float> grad);

// train_rl's loss on one batch of episodes of one task (features `task_features`):
// mean over steps of nll(action) * reward + entropy_weight * mean over steps of sum p log p,
// softmax over each step's legal devices; adds its gradient to `grad`. The shard costs are
// detached (torch.no_grad in _get_latent): table_fc and the cost heads get no gradient.
// `logits_out`, when not null, receives every step's legal logits in order.
double DreamShardRlLoss(std::span<const float> params, std::span<const float> task_features,
                        std::span<const RlEpisode> episodes, double entropy_weight,
                        DreamShardWorkspace& ws, std::span<float> grad,
                        std::vector<float>* logits_out = nullptr);

}  // namespace shardplan::rl

#endif  // SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_MODEL_H_
