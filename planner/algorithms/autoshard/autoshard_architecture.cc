#include "planner/algorithms/autoshard/autoshard_architecture.h"

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

void AddMlp(const AutoShardMlpSpec& mlp, std::vector<AutoShardTensorSpec>& specs) {
  for (size_t l = 0; l + 1 < mlp.sizes.size(); ++l) {
    const auto in = static_cast<uint32_t>(mlp.sizes[l]);
    const auto out = static_cast<uint32_t>(mlp.sizes[l + 1]);
    specs.push_back({absl::StrCat(mlp.prefix, "_", l, ".weight"), {out, in}});
    specs.push_back({absl::StrCat(mlp.prefix, "_", l, ".bias"), {out}});
  }
}

}  // namespace

AutoShardMlpSpec AutoShardTableMlp() {
  return {"t_fc", {kAutoShardFeatures, 128, kAutoShardTableLatent}, true};
}
AutoShardMlpSpec AutoShardStepMlp() { return {"s_fc", {1, kAutoShardStepLatent}, true}; }
AutoShardMlpSpec AutoShardActionMlp() {
  return {"a_fc", {kAutoShardActionOther, kAutoShardActionSize - kAutoShardTableLatent}, true};
}
AutoShardMlpSpec AutoShardPolicyMlp() { return {"p_fc", {kAutoShardPolicyInput, 128, 128, 64, 1}}; }
AutoShardMlpSpec AutoShardValueMlp() { return {"b_fc", {kAutoShardCoreSize, 64, 1}}; }
AutoShardMlpSpec AutoShardCostMlp() { return {"c_fc", {kAutoShardTableLatent, 64, 1}}; }

std::string AutoShardCoreTensor(const char* what, int layer) {
  return absl::StrCat("core.", what, "_l", layer);
}

std::vector<AutoShardTensorSpec> AutoShardTensorSpecs() {
  std::vector<AutoShardTensorSpec> specs;
  AddMlp(AutoShardTableMlp(), specs);
  AddMlp(AutoShardStepMlp(), specs);
  AddMlp(AutoShardActionMlp(), specs);
  constexpr auto kGates = static_cast<uint32_t>(4 * kAutoShardCoreSize);
  constexpr auto kHidden = static_cast<uint32_t>(kAutoShardCoreSize);
  for (int l = 0; l < kAutoShardCoreLayers; ++l) {
    specs.push_back({AutoShardCoreTensor("weight_ih", l), {kGates, kHidden}});
    specs.push_back({AutoShardCoreTensor("weight_hh", l), {kGates, kHidden}});
    specs.push_back({AutoShardCoreTensor("bias_ih", l), {kGates}});
    specs.push_back({AutoShardCoreTensor("bias_hh", l), {kGates}});
  }
  AddMlp(AutoShardPolicyMlp(), specs);
  AddMlp(AutoShardValueMlp(), specs);
  AddMlp(AutoShardCostMlp(), specs);
  return specs;
}

}  // namespace shardplan
