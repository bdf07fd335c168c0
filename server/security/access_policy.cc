#include "server/security/access_policy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.h"

namespace shardplan {

Access RequiredAccess(absl::string_view path) {
  if (absl::StartsWith(path, "/grpc.health.v1.Health/")) return Access::kOpen;
  if (absl::StartsWith(path, "/shardplan.v1.AdminService/")) return Access::kAdmin;
  if (path == "/shardplan.v1.PlannerService/ReportMeasurement") return Access::kMeasurements;
  return Access::kPlanner;
}

bool MaySeeJob(absl::string_view submitted_by, absl::string_view caller, bool caller_is_admin) {
  const bool owned =
      absl::StartsWith(submitted_by, "token:") || absl::StartsWith(submitted_by, "cert:");
  return !owned || caller_is_admin || submitted_by == caller;
}

std::optional<absl::string_view> BearerToken(std::optional<absl::string_view> authorization) {
  if (!authorization) return std::nullopt;
  constexpr absl::string_view kScheme = "bearer ";
  if (authorization->size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(authorization->substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  absl::string_view token = absl::StripAsciiWhitespace(authorization->substr(kScheme.size()));
  if (token.empty()) return std::nullopt;
  return token;
}

AccessDecision DecideAccess(const TokenStore& tokens, absl::string_view path,
                            std::optional<absl::string_view> authorization) {
  const Access needed = RequiredAccess(path);
  if (needed == Access::kOpen) return {};
  const std::optional<absl::string_view> token = BearerToken(authorization);
  if (!token) {
    return {
        absl::UnauthenticatedError("missing bearer token: send the metadata "
                                   "\"authorization: Bearer <token>\"")};
  }
  const TokenEntry* entry = tokens.Find(*token);
  if (entry == nullptr) return {absl::UnauthenticatedError("unknown bearer token")};
  if (needed == Access::kAdmin && entry->role != Role::kAdmin) {
    return {absl::PermissionDeniedError(
                absl::StrCat(absl::StripPrefix(path, "/"), " needs role \"admin\"; the token \"",
                             entry->name, "\" has role \"", RoleName(entry->role), "\"")),
            entry};
  }
  if (needed == Access::kMeasurements && !entry->may_report_measurements) {
    return {absl::PermissionDeniedError(absl::StrCat(
                absl::StripPrefix(path, "/"), " needs scope \"", kMeasurementsScope,
                "\"; the token \"", entry->name, "\" has role \"", RoleName(entry->role),
                "\" without it (auth_tokens_file: \"scopes\": [\"", kMeasurementsScope, "\"])")),
            entry};
  }
  return {absl::OkStatus(), entry};
}

std::string MethodLabel(absl::string_view path) {
  if (!absl::StartsWith(path, "/")) return "unknown";
  const std::string name(path.substr(1));
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return "unknown";
  // The descriptor pool knows every service linked into the server.
  const std::string full_name = absl::StrReplaceAll(name, {{"/", "."}});
  if (google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(full_name) == nullptr) {
    return "unknown";
  }
  return name;
}

}  // namespace shardplan
