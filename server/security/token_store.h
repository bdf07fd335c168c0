#ifndef SHARDPLAN_SERVER_SECURITY_TOKEN_STORE_H_
#define SHARDPLAN_SERVER_SECURITY_TOKEN_STORE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shardplan {

// What a bearer token may do. An admin may also do everything a planner may.
enum class Role { kPlanner, kAdmin };

const char* RoleName(Role role);  // "planner", "admin"

// A permission beyond the role's, granted token by token: "measurements" lets a token report
// measured step times (ReportMeasurement), which move the models' error gauges that operators
// alert on; a planner token without it plans but does not report.
inline constexpr char kMeasurementsScope[] = "measurements";

struct TokenEntry {
  std::string name;                  // the client's identity, e.g. "trainer-a"
  std::array<uint8_t, 32> sha256{};  // SHA-256 of the token; the token itself is never stored
  Role role = Role::kPlanner;
  bool may_report_measurements = false;  // scope "measurements" (admins have it)
};

// The bearer tokens of auth_tokens_file:
//   {"tokens": [{"name": "trainer-a", "sha256": "<64 hex digits>", "role":
//   "planner", "scopes": ["measurements"]}]}
// ("scopes" optional; "measurements" is the one scope).
// Only hashes live on disk and in memory, so a leaked file or core dump leaks
// no token. Immutable once built; share it as std::shared_ptr<const
// TokenStore>.
class TokenStore {
 public:
  // INVALID_ARGUMENT naming the entry and field ("tokens[1].sha256: ...") for
  // malformed JSON, unknown keys, a bad hash or role, duplicate names or
  // hashes, or an empty list.
  static absl::StatusOr<TokenStore> Parse(absl::string_view json_text);

  // Parse of the file at `path`; errors start with `auth_tokens_file "<path>":
  // `. NOT_FOUND when it cannot be read.
  static absl::StatusOr<std::shared_ptr<const TokenStore>> Load(const std::string& path);

  // The entry whose hash is SHA-256(token), or null. Compares against every
  // entry in constant time, so the time taken tells nothing about how close a
  // guess was.
  const TokenEntry* Find(absl::string_view token) const;

  const std::vector<TokenEntry>& entries() const { return entries_; }

 private:
  std::vector<TokenEntry> entries_;
};

// Lower-case hex SHA-256 of `text` (what auth_tokens_file holds for a token).
std::string Sha256Hex(absl::string_view text);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SECURITY_TOKEN_STORE_H_
