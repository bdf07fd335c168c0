#ifndef SHARDPLAN_SERVER_CACHE_KEY_H_
#define SHARDPLAN_SERVER_CACHE_KEY_H_

#include <cstdint>
#include <map>
#include <string>

#include "planner/task.h"

namespace shardplan {

// The inputs that determine a plan. Two requests with equal keys get the same plan.
struct CacheKeyInputs {
  const Task* task = nullptr;  // canonicalised by PlanCacheKey itself
  std::string algorithm;
  std::map<std::string, std::string> resolved_params;  // ResolveParams output: defaults filled
  uint64_t seed = 0;
  std::string model_id;  // exact "name@version"
};

// Lowercase hex SHA-256 of the canonical request: the compact JSON array
//   [TaskToJson(CanonicalTask(task)), algorithm, {resolved parameters}, "seed", model_id]
// (the seed as a decimal string, so 64-bit values survive). The task's table order and the
// client's JSON spelling do not change it; the algorithm, any parameter, the seed and the model
// version do.
std::string PlanCacheKey(const CacheKeyInputs& inputs);

// Lowercase hex SHA-256 of `bytes` (OpenSSL EVP); "" if OpenSSL fails (out of memory).
std::string Sha256Hex(const std::string& bytes);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_CACHE_KEY_H_
