#include "tests/support/test_policies.h"

#include <cmath>
#include <random>

#include "base/seeded_rng.h"
#include "planner/algorithms/autoshard/autoshard_architecture.h"
#include "planner/algorithms/autoshard/autoshard_features.h"

namespace shardplan::test {

Policy AutoShardTestPolicy(uint64_t seed) {
  Policy policy;
  policy.name = "autoshard-test";
  policy.version = "1";
  policy.algorithm = "autoshard";
  policy.architecture = kAutoShardArchitecture;
  policy.hardware_profile = "sim-rtx2080ti";
  std::mt19937_64 rng(seed);
  for (const AutoShardTensorSpec& spec : AutoShardTensorSpecs()) {
    const bool lstm = spec.name.rfind("core.", 0) == 0;
    const uint32_t fan = lstm ? kAutoShardCoreSize : spec.shape.back();
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan));
    size_t size = 1;
    for (uint32_t d : spec.shape) size *= d;
    PolicyTensor tensor{spec.shape, {}};
    tensor.data.reserve(size);
    for (size_t k = 0; k < size; ++k) {
      tensor.data.push_back(static_cast<float>(bound * (2.0 * Uniform01(rng) - 1.0)));
    }
    policy.tensors[spec.name] = std::move(tensor);
  }
  policy.constants = AutoShardConstants(AutoShardFeatureConfig{});
  return policy;
}

std::shared_ptr<const Policy> TestPolicyFor(const Algorithm& algorithm) {
  if (algorithm.info().name == "autoshard") {
    return std::make_shared<const Policy>(AutoShardTestPolicy());
  }
  return nullptr;
}

}  // namespace shardplan::test
