#ifndef SHARDPLAN_SERVER_CACHE_KEY_H_
#define SHARDPLAN_SERVER_CACHE_KEY_H_

#include <cstdint>
#include <map>
#include <string>

#include "base/sha256.h"  // Sha256Hex, the one SHA-256 helper
#include "planner/domain/task.h"

namespace shardplan {

// The inputs that determine a plan. Two requests with equal keys get the same plan.
struct CacheKeyInputs {
  const Task* task = nullptr;  // canonicalised by PlanCacheKey itself
  std::string algorithm;
  std::map<std::string, std::string> resolved_params;  // ResolveParams output: defaults filled
  uint64_t seed = 0;
  std::string model_id;  // exact "name@version"
  // The resolved version's content_sha256 (ModelManifest): "" for built-ins, the manifest's
  // SHA-256 for bundles, so a version whose bundle hot reload replaced never hits the plans of
  // its old content.
  std::string model_content;
  // The resolved policy's content_sha256 (PolicyManifest) for algorithms that plan with a
  // trained policy, else "": a version whose bundle hot reload replaced never hits the plans of
  // its old content (its exact name@version is in resolved_params["policy"]).
  std::string policy_content;
};

// Lowercase hex SHA-256 of the canonical request: the compact JSON array
//   [algorithm, {resolved parameters}, "seed", model_id]
// with model_content appended when it or policy_content is not "", then policy_content when it
// is not "" (so a request without a policy keeps the key it always had; the seed as a decimal
// string, so 64-bit values survive), object keys sorted, then a newline and CanonicalTask(task)
// as the deterministic binary encoding of its shardplan.v1.Task (wire::TaskToProto), so a field
// added to the proto is in every key that sets it (but topology.hardware, which only chooses the
// model: the model's id and content are in the key). The task's table order and the client's JSON
// spelling do not change it; the algorithm, any parameter, the seed and the model version do.
std::string PlanCacheKey(const CacheKeyInputs& inputs);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_CACHE_KEY_H_
