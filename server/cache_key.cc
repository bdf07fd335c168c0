#include "server/cache_key.h"

#include "nlohmann/json.hpp"
#include "wire/json_io.h"

namespace shardplan {

std::string PlanCacheKey(const CacheKeyInputs& inputs) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : inputs.resolved_params) params[name] = value;
  // Parsed back so that its keys are sorted like the rest (nlohmann::json keeps objects in a
  // std::map); the printer writes valid JSON, so the parse cannot fail.
  // A prepared request's task is canonical already; copying it to sort it again is skipped.
  const std::string task_json = IsCanonical(*inputs.task)
                                    ? wire::TaskToJson(*inputs.task)
                                    : wire::TaskToJson(CanonicalTask(*inputs.task));
  nlohmann::json task = nlohmann::json::parse(task_json);
  nlohmann::json canonical = nlohmann::json::array(
      {std::move(task), inputs.algorithm, std::move(params), std::to_string(inputs.seed),
       inputs.model_id});
  // Appended only for bundles, so built-in models keep the keys they always had.
  if (!inputs.model_content.empty()) canonical.push_back(inputs.model_content);
  // Object keys are sorted (nlohmann::json uses std::map). Invalid UTF-8 cannot reach here
  // from gRPC (proto3 strings are checked), but replacing it keeps dump() from throwing.
  return Sha256Hex(canonical.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace shardplan
