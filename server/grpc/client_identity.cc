#include "server/grpc/client_identity.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/security/auth_context.h"
#include "server/security/access_policy.h"

namespace shardplan {

std::string PeerHost(absl::string_view peer) {
  for (absl::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (!absl::ConsumePrefix(&peer, scheme)) continue;
    const size_t colon = peer.rfind(':');
    absl::string_view host = colon == absl::string_view::npos ? peer : peer.substr(0, colon);
    if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");
    return std::string(host);
  }
  return std::string(peer);
}

namespace {

// The entry of the call's bearer token, or null. The authenticator already refused unknown
// tokens; a miss means the token set was replaced (SIGHUP) in between.
const TokenEntry* CallerToken(const grpc::ServerContext& context, const TokenStore* tokens) {
  if (tokens == nullptr) return nullptr;
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) return nullptr;
  const std::optional<absl::string_view> token =
      BearerToken(absl::string_view(it->second.data(), it->second.size()));
  return token ? tokens->Find(*token) : nullptr;
}

}  // namespace

bool CallerIsAdmin(const grpc::ServerContext& context, const TokenStore* tokens) {
  const TokenEntry* entry = CallerToken(context, tokens);
  return entry != nullptr && entry->role == Role::kAdmin;
}

std::string ClientIdentity(const grpc::ServerContext& context, const TokenStore* tokens) {
  if (const TokenEntry* entry = CallerToken(context, tokens)) {
    return absl::StrCat("token:", entry->name);
  }
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    for (const grpc::string_ref& name : auth->GetPeerIdentity()) {
      return absl::StrCat("cert:", absl::string_view(name.data(), name.size()));
    }
  }
  return absl::StrCat("peer:", PeerHost(context.peer()));
}

}  // namespace shardplan
