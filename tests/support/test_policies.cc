#include "tests/support/test_policies.h"

#include <cmath>
#include <random>
#include <string>

#include "base/seeded_rng.h"
#include "planner/algorithms/autoshard/autoshard_architecture.h"
#include "planner/algorithms/autoshard/autoshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/table.h"

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

Policy DreamShardTestPolicy(uint64_t seed) {
  Policy policy;
  policy.name = "dreamshard-test";
  policy.version = "1";
  policy.algorithm = kDreamShardAlgorithm;
  policy.architecture = kDreamShardArchitecture;
  policy.hardware_profile = "sim-rtx2080ti";
  std::mt19937_64 rng(seed);
  for (int m = 0; m < kNumDreamShardMlps; ++m) {
    const DreamShardMlpSpec& spec = DreamShardMlpSpecs()[m];
    for (size_t l = 0; l + 1 < spec.sizes.size(); ++l) {
      const uint32_t in = static_cast<uint32_t>(spec.sizes[l]);
      const uint32_t out = static_cast<uint32_t>(spec.sizes[l + 1]);
      std::uniform_real_distribution<double> uniform(-1.0 / std::sqrt(in), 1.0 / std::sqrt(in));
      PolicyTensor weight{{out, in}, {}};
      for (uint32_t k = 0; k < out * in; ++k)
        weight.data.push_back(static_cast<float>(uniform(rng)));
      PolicyTensor bias{{out}, {}};
      for (uint32_t k = 0; k < out; ++k) bias.data.push_back(static_cast<float>(uniform(rng)));
      policy.tensors[DreamShardWeightName(m, static_cast<int>(l))] = std::move(weight);
      policy.tensors[DreamShardBiasName(m, static_cast<int>(l))] = std::move(bias);
    }
  }
  for (int j = 0; j < kNumAccessBins; ++j) {
    policy.constants[MissingAccessBinConstant(j)] = j == 0   ? 0.6
                                                    : j == 1 ? 0.3
                                                    : j == 2 ? 0.1
                                                             : 0.0;
  }
  return policy;
}

std::shared_ptr<const Policy> TestPolicyFor(const Algorithm& algorithm) {
  if (algorithm.info().name == kDreamShardAlgorithm) {
    return std::make_shared<const Policy>(DreamShardTestPolicy());
  }
  if (algorithm.info().name == "autoshard") {
    return std::make_shared<const Policy>(AutoShardTestPolicy());
  }
  return nullptr;
}

}  // namespace shardplan::test
