#ifndef SHARDPLAN_SERVER_GRPC_CLIENT_IDENTITY_H_
#define SHARDPLAN_SERVER_GRPC_CLIENT_IDENTITY_H_

#include <string>

#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"
#include "server/security/token_store.h"

namespace shardplan {

// Who is calling, for per-client limits and logs. In order of preference:
//   "token:<name>"  the name of the caller's bearer token (when `tokens` is not
//   null) "cert:<name>"   the verified client certificate's SAN or CN (mutual
//   TLS) "peer:<host>"   the peer address without its port (plaintext, or TLS
//   without client certs)
std::string ClientIdentity(const grpc::ServerContext& context, const TokenStore* tokens);

// Whether the caller's bearer token (looked up in `tokens`; false when null) has role admin:
// such a caller sees and cancels every client's jobs (MaySeeJob).
bool CallerIsAdmin(const grpc::ServerContext& context, const TokenStore* tokens);

// "ipv4:10.1.2.3:5000" -> "10.1.2.3", "ipv6:[::1]:5000" -> "::1"; others
// unchanged.
std::string PeerHost(absl::string_view peer);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_CLIENT_IDENTITY_H_
