#include "server/cache_key.h"

#include <openssl/evp.h>

#include <memory>

#include "nlohmann/json.hpp"
#include "planner/json_io.h"

namespace shardplan {

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
  // These calls fail only on allocation failure; callers treat "" as "do not cache".
  if (context == nullptr || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), digest, &length) != 1) {
    return "";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

std::string PlanCacheKey(const CacheKeyInputs& inputs) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : inputs.resolved_params) params[name] = value;
  const nlohmann::json canonical =
      nlohmann::json::array({TaskToJson(CanonicalTask(*inputs.task)), inputs.algorithm,
                             std::move(params), std::to_string(inputs.seed), inputs.model_id});
  // Object keys are sorted (nlohmann::json uses std::map). Invalid UTF-8 cannot reach here
  // from gRPC (proto3 strings are checked), but replacing it keeps dump() from throwing.
  return Sha256Hex(canonical.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace shardplan
