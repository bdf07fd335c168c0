#ifndef SHARDPLAN_PLANNER_DOMAIN_POLICY_H_
#define SHARDPLAN_PLANNER_DOMAIN_POLICY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace shardplan {

// One tensor of a policy, row-major (torch's layout for the tensor of that name).
struct PolicyTensor {
  std::vector<uint32_t> shape;
  std::vector<float> data;  // product(shape) values
};

// A trained placement policy (AutoShard, DreamShard: docs/policies.md): what a learned planner
// reads besides the task, as a policy bundle under the models root holds it
// (costmodels/artifacts/policy_bundle.h). Immutable once loaded; requests that resolved it
// share it (PolicyRegistry hands out shared_ptrs), so a hot reload never changes a plan in
// flight. The algorithm that reads it checks it (Algorithm::CheckPolicy) before it is served.
struct Policy {
  std::string name;  // [A-Za-z0-9._-]+, the bundle's directory names
  std::string version;
  std::string algorithm;         // the algorithm that reads it: "autoshard", "dreamshard"
  std::string architecture;      // which tensors and shapes, e.g. "autoshard-1"
  std::string hardware_profile;  // the ground truth it was trained on, e.g. "sim-rtx2080ti"
  // Named tensors (torch state_dict names where the reference has them).
  std::map<std::string, PolicyTensor> tensors;
  // Named scalars the algorithm reads besides weights: feature normalisation
  // ("feature_mean.rows"), ablations ("ablate.pooling_factor" = 1), ...
  std::map<std::string, double> constants;
  // The SHA-256 of the bundle's manifest (which holds the weights' SHA-256): what tells two
  // contents of one name@version apart; part of the plan cache key.
  std::string content_sha256;

  std::string id() const { return name + "@" + version; }
};

// The shape of every tensor an architecture reads, by name.
using PolicyTensorShapes = std::map<std::string, std::vector<uint32_t>>;

// The tensor half of Algorithm::CheckPolicy: OK when `policy` holds exactly the tensors of
// `expected`, each of that shape, with as many values as the shape has and all finite.
// Otherwise FAILED_PRECONDITION naming the tensor and what is wrong ("tensor t_fc_0.bias is not
// finite"); the algorithm prefixes its own context.
absl::Status CheckPolicyTensors(const Policy& policy, const PolicyTensorShapes& expected);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_POLICY_H_
