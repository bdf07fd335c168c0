#ifndef SHARDPLAN_SERVER_SECURITY_ACCESS_POLICY_H_
#define SHARDPLAN_SERVER_SECURITY_ACCESS_POLICY_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/security/token_store.h"

namespace shardplan {

// Who may call what, decided from the call's path ("/package.Service/Method")
// alone, so that every method is covered, those of gRPC's own services and ones
// added later included:
//   grpc.health.v1.Health/*           anyone (Kubernetes probes carry no token)
//   shardplan.v1.AdminService/*       role admin
//   PlannerService/ReportMeasurement  scope "measurements" (or role admin)
//   everything else                   role planner (PlannerService, server
//   reflection, ...)
enum class Access { kOpen, kPlanner, kMeasurements, kAdmin };
Access RequiredAccess(absl::string_view path);

// The token of an `authorization` metadata value "Bearer <token>" (scheme
// case-insensitive, RFC 6750); nullopt when the value is missing, of another
// scheme, or the token is empty.
std::optional<absl::string_view> BearerToken(std::optional<absl::string_view> authorization);

struct AccessDecision {
  // OK, UNAUTHENTICATED ("missing bearer token", "unknown bearer token") or
  // PERMISSION_DENIED naming the method and the role it needs.
  absl::Status status;
  const TokenEntry* token = nullptr;  // the caller's entry once authenticated
};

AccessDecision DecideAccess(const TokenStore& tokens, absl::string_view path,
                            std::optional<absl::string_view> authorization);

// Whether the caller `caller` (a ClientIdentity) may see a job by its id (GetPlan, WatchPlan,
// CancelPlan) that `submitted_by` submitted. Jobs belong to the identity that submitted them:
// a job submitted under a token or certificate identity ("token:<name>", "cert:<name>") is
// seen by that identity and by admin-role tokens only. A job submitted by a peer identity
// ("peer:<host>": no tokens, no client certificates, so nothing authenticated it) or by no one
// known ("": stored before schema version 3) is seen by every caller, as before.
bool MaySeeJob(absl::string_view submitted_by, absl::string_view caller, bool caller_is_admin);

// The `method` label of shardplan_auth_rejections_total:
// "package.Service/Method" when the server knows that method, else "unknown",
// so hostile paths cannot grow the series without bound.
std::string MethodLabel(absl::string_view path);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SECURITY_ACCESS_POLICY_H_
