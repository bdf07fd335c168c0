#include "tests/support/test_policies.h"

#include <cmath>
#include <random>
#include <string>

#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/table.h"

namespace shardplan::test {

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
  return nullptr;
}

}  // namespace shardplan::test
