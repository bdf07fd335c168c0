#include "lab/rl/autoshard/autoshard_params.h"

#include "absl/strings/str_cat.h"
#include "planner/algorithms/autoshard/autoshard_architecture.h"

namespace shardplan::autoshard {
namespace {

MlpShape ShapeOf(const AutoShardMlpSpec& spec) { return MlpShape(spec.sizes, spec.relu_on_output); }

PolicyTensor TensorOf(std::span<const float> params, int64_t at, std::vector<uint32_t> shape) {
  PolicyTensor tensor;
  size_t size = 1;
  for (uint32_t d : shape) size *= d;
  tensor.shape = std::move(shape);
  tensor.data.assign(params.begin() + at, params.begin() + at + static_cast<int64_t>(size));
  return tensor;
}

void AddMlp(const AutoShardMlpSpec& spec, const MlpShape& shape, std::span<const float> params,
            int64_t at, Policy& policy) {
  for (int l = 0; l < shape.num_layers(); ++l) {
    const auto in = static_cast<uint32_t>(shape.in(l));
    const auto out = static_cast<uint32_t>(shape.out(l));
    policy.tensors[absl::StrCat(spec.prefix, "_", l, ".weight")] =
        TensorOf(params, at + shape.weight_offset(l), {out, in});
    policy.tensors[absl::StrCat(spec.prefix, "_", l, ".bias")] =
        TensorOf(params, at + shape.bias_offset(l), {out});
  }
}

}  // namespace

ParamLayout::ParamLayout()
    : t_fc(ShapeOf(AutoShardTableMlp())),
      s_fc(ShapeOf(AutoShardStepMlp())),
      a_fc(ShapeOf(AutoShardActionMlp())),
      core(kAutoShardCoreSize, kAutoShardCoreSize, kAutoShardCoreLayers),
      p_fc(ShapeOf(AutoShardPolicyMlp())),
      b_fc(ShapeOf(AutoShardValueMlp())),
      c_fc(ShapeOf(AutoShardCostMlp())) {
  int64_t at = 0;
  auto place = [&](int64_t& where, int64_t size) {
    where = at;
    at += size;
  };
  place(t_fc_at, t_fc.num_params());
  place(s_fc_at, s_fc.num_params());
  place(a_fc_at, a_fc.num_params());
  place(core_at, core.num_params());
  place(p_fc_at, p_fc.num_params());
  place(b_fc_at, b_fc.num_params());
  place(c_fc_at, c_fc.num_params());
  total = at;
}

std::vector<float> InitAutoShardParams(const ParamLayout& layout, std::mt19937_64& rng) {
  std::vector<float> params(static_cast<size_t>(layout.total), 0.0f);
  std::span<float> all(params);
  InitParams(layout.t_fc, rng, Slice(all, layout.t_fc_at, layout.t_fc.num_params()));
  InitParams(layout.s_fc, rng, Slice(all, layout.s_fc_at, layout.s_fc.num_params()));
  InitParams(layout.a_fc, rng, Slice(all, layout.a_fc_at, layout.a_fc.num_params()));
  InitLstmParams(layout.core, rng, Slice(all, layout.core_at, layout.core.num_params()));
  InitParams(layout.p_fc, rng, Slice(all, layout.p_fc_at, layout.p_fc.num_params()));
  InitParams(layout.b_fc, rng, Slice(all, layout.b_fc_at, layout.b_fc.num_params()));
  InitParams(layout.c_fc, rng, Slice(all, layout.c_fc_at, layout.c_fc.num_params()));
  return params;
}

void TransposedParams::Update(const ParamLayout& layout, std::span<const float> params) {
  t_fc.Update(layout.t_fc, Slice(params, layout.t_fc_at, layout.t_fc.num_params()));
  s_fc.Update(layout.s_fc, Slice(params, layout.s_fc_at, layout.s_fc.num_params()));
  a_fc.Update(layout.a_fc, Slice(params, layout.a_fc_at, layout.a_fc.num_params()));
  p_fc.Update(layout.p_fc, Slice(params, layout.p_fc_at, layout.p_fc.num_params()));
  b_fc.Update(layout.b_fc, Slice(params, layout.b_fc_at, layout.b_fc.num_params()));
  c_fc.Update(layout.c_fc, Slice(params, layout.c_fc_at, layout.c_fc.num_params()));
}

Policy AutoShardPolicyFromParams(const ParamLayout& layout, std::span<const float> params,
                                 const AutoShardFeatureConfig& config) {
  Policy policy;
  policy.algorithm = "autoshard";
  policy.architecture = kAutoShardArchitecture;
  AddMlp(AutoShardTableMlp(), layout.t_fc, params, layout.t_fc_at, policy);
  AddMlp(AutoShardStepMlp(), layout.s_fc, params, layout.s_fc_at, policy);
  AddMlp(AutoShardActionMlp(), layout.a_fc, params, layout.a_fc_at, policy);
  const LstmShape& core = layout.core;
  const auto gates = static_cast<uint32_t>(4 * core.hidden_size());
  const auto hidden = static_cast<uint32_t>(core.hidden_size());
  for (int l = 0; l < core.num_layers(); ++l) {
    const auto in = static_cast<uint32_t>(core.layer_input(l));
    policy.tensors[AutoShardCoreTensor("weight_ih", l)] =
        TensorOf(params, layout.core_at + core.weight_ih_offset(l), {gates, in});
    policy.tensors[AutoShardCoreTensor("weight_hh", l)] =
        TensorOf(params, layout.core_at + core.weight_hh_offset(l), {gates, hidden});
    policy.tensors[AutoShardCoreTensor("bias_ih", l)] =
        TensorOf(params, layout.core_at + core.bias_ih_offset(l), {gates});
    policy.tensors[AutoShardCoreTensor("bias_hh", l)] =
        TensorOf(params, layout.core_at + core.bias_hh_offset(l), {gates});
  }
  AddMlp(AutoShardPolicyMlp(), layout.p_fc, params, layout.p_fc_at, policy);
  AddMlp(AutoShardValueMlp(), layout.b_fc, params, layout.b_fc_at, policy);
  AddMlp(AutoShardCostMlp(), layout.c_fc, params, layout.c_fc_at, policy);
  policy.constants = AutoShardConstants(config);
  return policy;
}

}  // namespace shardplan::autoshard
