#include "planner/algorithms/autoshard/autoshard_network.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

absl::Status PolicyError(const Policy& policy, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat("policy ", policy.id(), ": ", what));
}

// The tensor, checked by CheckAutoShardPolicy before.
const PolicyTensor& TensorOf(const Policy& policy, const std::string& name) {
  return policy.tensors.at(name);
}

absl::StatusOr<Mlp> MlpOf(const Policy& policy, const AutoShardMlpSpec& spec) {
  std::vector<DenseLayer> layers;
  for (size_t l = 0; l + 1 < spec.sizes.size(); ++l) {
    DenseLayer layer;
    layer.in = spec.sizes[l];
    layer.out = spec.sizes[l + 1];
    layer.weight = TensorOf(policy, absl::StrCat(spec.prefix, "_", l, ".weight")).data;
    layer.bias = TensorOf(policy, absl::StrCat(spec.prefix, "_", l, ".bias")).data;
    layers.push_back(std::move(layer));
  }
  return Mlp::Create(std::move(layers), spec.relu_on_output);
}

}  // namespace

absl::Status CheckAutoShardPolicy(const Policy& policy) {
  if (policy.algorithm != "autoshard") {
    return PolicyError(policy,
                       absl::StrCat("algorithm is \"", policy.algorithm, "\", not \"autoshard\""));
  }
  if (policy.architecture != kAutoShardArchitecture) {
    return PolicyError(
        policy, absl::StrCat("architecture is \"", policy.architecture, "\"; this build runs \"",
                             kAutoShardArchitecture, "\""));
  }
  PolicyTensorShapes expected;
  for (const AutoShardTensorSpec& spec : AutoShardTensorSpecs()) expected[spec.name] = spec.shape;
  if (absl::Status tensors = CheckPolicyTensors(policy, expected); !tensors.ok()) {
    return PolicyError(policy, std::string(tensors.message()));
  }
  absl::StatusOr<AutoShardFeatureConfig> config = AutoShardConfigFromConstants(policy.constants);
  if (!config.ok()) return PolicyError(policy, std::string(config.status().message()));
  return absl::OkStatus();
}

absl::StatusOr<AutoShardNetwork> AutoShardNetwork::FromPolicy(const Policy& policy) {
  if (absl::Status checked = CheckAutoShardPolicy(policy); !checked.ok()) return checked;
  absl::StatusOr<AutoShardFeatureConfig> config = AutoShardConfigFromConstants(policy.constants);
  if (!config.ok()) return config.status();
  absl::StatusOr<Mlp> t_fc = MlpOf(policy, AutoShardTableMlp());
  absl::StatusOr<Mlp> s_fc = MlpOf(policy, AutoShardStepMlp());
  absl::StatusOr<Mlp> a_fc = MlpOf(policy, AutoShardActionMlp());
  absl::StatusOr<Mlp> p_fc = MlpOf(policy, AutoShardPolicyMlp());
  absl::StatusOr<Mlp> c_fc = MlpOf(policy, AutoShardCostMlp());
  for (const absl::StatusOr<Mlp>* mlp : {&t_fc, &s_fc, &a_fc, &p_fc, &c_fc}) {
    if (!mlp->ok()) return PolicyError(policy, std::string(mlp->status().message()));
  }
  std::vector<LstmLayer> layers;
  for (int l = 0; l < kAutoShardCoreLayers; ++l) {
    LstmLayer layer;
    layer.in = kAutoShardCoreSize;
    layer.hidden = kAutoShardCoreSize;
    layer.weight_ih = TensorOf(policy, AutoShardCoreTensor("weight_ih", l)).data;
    layer.weight_hh = TensorOf(policy, AutoShardCoreTensor("weight_hh", l)).data;
    layer.bias_ih = TensorOf(policy, AutoShardCoreTensor("bias_ih", l)).data;
    layer.bias_hh = TensorOf(policy, AutoShardCoreTensor("bias_hh", l)).data;
    layers.push_back(std::move(layer));
  }
  absl::StatusOr<Lstm> core = Lstm::Create(std::move(layers));
  if (!core.ok()) return PolicyError(policy, std::string(core.status().message()));
  return AutoShardNetwork(*config, *std::move(t_fc), *std::move(s_fc), *std::move(a_fc),
                          *std::move(core), *std::move(p_fc), *std::move(c_fc));
}

AutoShardNetwork::AutoShardNetwork(AutoShardFeatureConfig config, Mlp t_fc, Mlp s_fc, Mlp a_fc,
                                   Lstm core, Mlp p_fc, Mlp c_fc)
    : config_(config),
      t_fc_(std::move(t_fc)),
      s_fc_(std::move(s_fc)),
      a_fc_(std::move(a_fc)),
      core_(std::move(core)),
      p_fc_(std::move(p_fc)),
      c_fc_(std::move(c_fc)) {}

void AutoShardNetwork::Run(const Mlp& mlp, const float* in, int rows, float* out) const {
  if (scratch_.size() < mlp.scratch_size()) scratch_.resize(mlp.scratch_size());
  mlp.Forward(in, rows, out, scratch_);
}

void AutoShardNetwork::TableLatents(const float* features, int rows, float* latents) const {
  Run(t_fc_, features, rows, latents);
}

float AutoShardNetwork::PredictCost(const float* latent_sum) const {
  float cost = 0.0f;
  Run(c_fc_, latent_sum, 1, &cost);
  return cost;
}

void AutoShardNetwork::StepLatent(float fraction, float* out) const {
  Run(s_fc_, &fraction, 1, out);
}

void AutoShardNetwork::ActionOther(const float* other, int rows, float* out) const {
  Run(a_fc_, other, rows, out);
}

void AutoShardNetwork::PolicyLogits(const float* inputs, int rows, float* logits) const {
  Run(p_fc_, inputs, rows, logits);
}

void AutoShardPolicyRow(const float* state, const float* shard_sum, const float* dummy,
                        const float* action_other, float* row) {
  constexpr int kS = kAutoShardCoreSize;
  constexpr int kT = kAutoShardTableLatent;
  float* action = row + kS;
  for (int i = 0; i < kS; ++i) row[i] = state[i];
  for (int i = 0; i < kT; ++i) action[i] = shard_sum[i] + dummy[i];
  for (int i = kT; i < kAutoShardActionSize; ++i) action[i] = action_other[i - kT];
  for (int i = 0; i < kS; ++i) row[2 * kS + i] = state[i] * action[i];
}

}  // namespace shardplan
