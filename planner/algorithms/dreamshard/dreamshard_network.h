#ifndef SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_NETWORK_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_NETWORK_H_

#include <array>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nn/mlp.h"
#include "planner/domain/policy.h"

namespace shardplan {

// DreamShard's network (the reference's dreamshard/models.py Model), tensors named as its
// state_dict. value_net is not part of it: the reference never uses it.
inline constexpr char kDreamShardAlgorithm[] = "dreamshard";
inline constexpr char kDreamShardArchitecture[] = "dreamshard-1";
inline constexpr int kDreamShardLatent = 32;
inline constexpr int kDreamShardCosts = 3;  // kernel_forward's order: forward, comm, backward

// The sub-networks, in the reference's state_dict order (also the trainer's parameter order).
enum DreamShardMlp {
  kTableFc,          // 21 -> 128 -> 32, ReLU, ReLU: the cost model's table latent
  kRlTableFc,        // 21 -> 128 -> 32, ReLU, ReLU: the policy's table latent
  kForwardFc,        // 32 -> 64 -> 1
  kCommunicationFc,  // 32 -> 64 -> 1
  kBackwardFc,       // 32 -> 64 -> 1
  kOverallFc,        // 32 -> 64 -> 1, on the max over devices of the shard latents
  kCostFc,           // 3 -> 64 -> 32, ReLU, ReLU, on a shard's predicted costs
  kPolicyNet,        // 64 -> 1 (one Linear), on [rl latent sum || cost latent]
  kNumDreamShardMlps
};

struct DreamShardMlpSpec {
  const char* name;        // "table_fc" (layers table_fc_0, table_fc_1) or "policy_net"
  std::vector<int> sizes;  // {in, hidden..., out}
  bool relu_on_output;
  bool indexed;  // layer tensors "<name>_<l>.weight"; else "<name>.weight" (one layer)
};
const std::array<DreamShardMlpSpec, kNumDreamShardMlps>& DreamShardMlpSpecs();

// Tensor name and torch shape of layer `layer` of `mlp` ("table_fc_0.weight" [128, 21]).
std::string DreamShardWeightName(int mlp, int layer);
std::string DreamShardBiasName(int mlp, int layer);

// OK when `policy` is a DreamShard policy this code runs: algorithm, architecture, exactly the
// tensors above with their shapes and finite values, the missing-histogram constants.
// FAILED_PRECONDITION naming the policy and what is wrong.
absl::Status CheckDreamShardPolicy(const Policy& policy);

// The network of a checked policy, for inference (the planner and the trainer's rollouts).
// Not thread-safe (scratch): one per planning run.
class DreamShardNet {
 public:
  static absl::StatusOr<DreamShardNet> FromPolicy(const Policy& policy);

  // table_fc and rl_table_fc of `rows` feature rows: latents rows x 32 each.
  void TableLatents(const float* features, int rows, float* cost_latents, float* rl_latents) const;
  // The latents of the zero feature row: what an empty shard is (env._get_obs).
  const float* empty_cost_latent() const { return empty_cost_.data(); }
  const float* empty_rl_latent() const { return empty_rl_.data(); }
  // kernel_forward on a shard's latent sum: forward, communication, backward.
  void KernelCosts(const float* cost_latent_sum, float costs[kDreamShardCosts]) const;
  // policy_net(rl latent sum || cost_fc(costs)): a device's logit.
  float Logit(const float* rl_latent_sum, const float costs[kDreamShardCosts]) const;
  // overall_fc on the elementwise max over devices of the shard latent sums.
  float Overall(const float* max_latent) const;

  // The policy's histogram for tables sent without one (dreamshard_features.h).
  const std::vector<double>& missing_bins_double() const { return missing_bins_; }

 private:
  DreamShardNet() = default;
  float Scalar(int mlp, const float* input) const;

  std::vector<Mlp> mlps_;
  std::vector<float> empty_cost_;
  std::vector<float> empty_rl_;
  std::vector<double> missing_bins_;
  mutable std::vector<float> scratch_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_NETWORK_H_
