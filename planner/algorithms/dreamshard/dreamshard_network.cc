#include "planner/algorithms/dreamshard/dreamshard_network.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/domain/table.h"

namespace shardplan {
namespace {

absl::Status Refuse(const Policy& policy, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat(
      "policy ", policy.id(), " is not a ", kDreamShardArchitecture, " DreamShard policy: ", why));
}

}  // namespace

const std::array<DreamShardMlpSpec, kNumDreamShardMlps>& DreamShardMlpSpecs() {
  static const std::array<DreamShardMlpSpec, kNumDreamShardMlps> specs = {{
      {"table_fc", {kDreamShardFeatures, 128, kDreamShardLatent}, true, true},
      {"rl_table_fc", {kDreamShardFeatures, 128, kDreamShardLatent}, true, true},
      {"forward_fc", {kDreamShardLatent, 64, 1}, false, true},
      {"communication_fc", {kDreamShardLatent, 64, 1}, false, true},
      {"backward_fc", {kDreamShardLatent, 64, 1}, false, true},
      {"overall_fc", {kDreamShardLatent, 64, 1}, false, true},
      {"cost_fc", {kDreamShardCosts, 64, kDreamShardLatent}, true, true},
      {"policy_net", {2 * kDreamShardLatent, 1}, false, false},
  }};
  return specs;
}

std::string DreamShardWeightName(int mlp, int layer) {
  const DreamShardMlpSpec& spec = DreamShardMlpSpecs()[mlp];
  return spec.indexed ? absl::StrCat(spec.name, "_", layer, ".weight")
                      : absl::StrCat(spec.name, ".weight");
}

std::string DreamShardBiasName(int mlp, int layer) {
  const DreamShardMlpSpec& spec = DreamShardMlpSpecs()[mlp];
  return spec.indexed ? absl::StrCat(spec.name, "_", layer, ".bias")
                      : absl::StrCat(spec.name, ".bias");
}

absl::Status CheckDreamShardPolicy(const Policy& policy) {
  if (policy.algorithm != kDreamShardAlgorithm) {
    return Refuse(policy, absl::StrCat("its algorithm is \"", policy.algorithm, "\""));
  }
  if (policy.architecture != kDreamShardArchitecture) {
    return Refuse(policy, absl::StrCat("its architecture is \"", policy.architecture, "\""));
  }
  PolicyTensorShapes expected;
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    const DreamShardMlpSpec& spec = DreamShardMlpSpecs()[m];
    for (size_t l = 0; l + 1 < spec.sizes.size(); ++l) {
      const uint32_t in = static_cast<uint32_t>(spec.sizes[l]);
      const uint32_t out = static_cast<uint32_t>(spec.sizes[l + 1]);
      expected[DreamShardWeightName(m, static_cast<int>(l))] = {out, in};
      expected[DreamShardBiasName(m, static_cast<int>(l))] = {out};
    }
  }
  if (absl::Status tensors = CheckPolicyTensors(policy, expected); !tensors.ok()) {
    return Refuse(policy, std::string(tensors.message()));
  }
  for (int j = 0; j < kNumAccessBins; ++j) {
    const std::string name = MissingAccessBinConstant(j);
    const auto it = policy.constants.find(name);
    if (it == policy.constants.end()) {
      return Refuse(policy, absl::StrCat("constant ", name, " missing"));
    }
    if (!std::isfinite(it->second)) {
      return Refuse(policy, absl::StrCat("constant ", name, " is not finite"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<DreamShardNet> DreamShardNet::FromPolicy(const Policy& policy) {
  SHARDPLAN_RETURN_IF_ERROR(CheckDreamShardPolicy(policy));
  DreamShardNet net;
  size_t scratch = 0;
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    const DreamShardMlpSpec& spec = DreamShardMlpSpecs()[m];
    std::vector<DenseLayer> layers;
    for (size_t l = 0; l + 1 < spec.sizes.size(); ++l) {
      DenseLayer layer;
      layer.in = spec.sizes[l];
      layer.out = spec.sizes[l + 1];
      layer.weight = policy.tensors.at(DreamShardWeightName(m, static_cast<int>(l))).data;
      layer.bias = policy.tensors.at(DreamShardBiasName(m, static_cast<int>(l))).data;
      layers.push_back(std::move(layer));
    }
    SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, Mlp::Create(std::move(layers), spec.relu_on_output));
    scratch = std::max(scratch, mlp.scratch_size());
    net.mlps_.push_back(std::move(mlp));
  }
  net.scratch_.resize(scratch + 2 * kDreamShardLatent);
  for (int j = 0; j < kNumAccessBins; ++j) {
    net.missing_bins_.push_back(policy.constants.at(MissingAccessBinConstant(j)));
  }
  const std::vector<float> zero(kDreamShardFeatures, 0.0f);
  net.empty_cost_.resize(kDreamShardLatent);
  net.empty_rl_.resize(kDreamShardLatent);
  net.TableLatents(zero.data(), 1, net.empty_cost_.data(), net.empty_rl_.data());
  return net;
}

void DreamShardNet::TableLatents(const float* features, int rows, float* cost_latents,
                                 float* rl_latents) const {
  std::span<float> scratch(scratch_);
  mlps_[kTableFc].Forward(features, rows, cost_latents, scratch);
  mlps_[kRlTableFc].Forward(features, rows, rl_latents, scratch);
}

float DreamShardNet::Scalar(int mlp, const float* input) const {
  float out = 0.0f;
  mlps_[mlp].Forward(input, 1, &out, std::span<float>(scratch_));
  return out;
}

void DreamShardNet::KernelCosts(const float* cost_latent_sum, float costs[kDreamShardCosts]) const {
  costs[0] = Scalar(kForwardFc, cost_latent_sum);
  costs[1] = Scalar(kCommunicationFc, cost_latent_sum);
  costs[2] = Scalar(kBackwardFc, cost_latent_sum);
}

float DreamShardNet::Logit(const float* rl_latent_sum, const float costs[kDreamShardCosts]) const {
  // [rl table latent || cost latent], as _get_latent concatenates them.
  float input[2 * kDreamShardLatent];
  std::copy(rl_latent_sum, rl_latent_sum + kDreamShardLatent, input);
  mlps_[kCostFc].Forward(costs, 1, input + kDreamShardLatent, std::span<float>(scratch_));
  return Scalar(kPolicyNet, input);
}

float DreamShardNet::Overall(const float* max_latent) const {
  return Scalar(kOverallFc, max_latent);
}

}  // namespace shardplan
