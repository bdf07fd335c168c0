#ifndef SHARDPLAN_BASE_SHA256_H_
#define SHARDPLAN_BASE_SHA256_H_

#include <string>
#include <string_view>

namespace shardplan {

// Lowercase hex SHA-256 of `bytes` (OpenSSL EVP); "" if OpenSSL fails (only on allocation
// failure). Plan-cache keys, dataset hashes and bundle checksums all use this one function.
std::string Sha256Hex(std::string_view bytes);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_SHA256_H_
