#ifndef SHARDPLAN_SERVER_GRPC_TOKEN_AUTHENTICATOR_H_
#define SHARDPLAN_SERVER_GRPC_TOKEN_AUTHENTICATOR_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "grpcpp/security/auth_metadata_processor.h"
#include "server/security/access_policy.h"
#include "server/security/token_store.h"

namespace shardplan {

class ServerMetrics;

// Checks the bearer token of every call before gRPC dispatches it to any
// service: installed on the server credentials (AuthMetadataProcessor), it sees
// each call's path and metadata and fails the call with the DecideAccess
// status, counted in shardplan_auth_rejections_total. The token set can be
// replaced while serving (SIGHUP). Thread-safe.
class TokenAuthenticator final : public grpc::AuthMetadataProcessor {
 public:
  // `metrics` may be null.
  TokenAuthenticator(std::shared_ptr<const TokenStore> tokens, ServerMetrics* metrics);

  void ReplaceTokens(std::shared_ptr<const TokenStore> tokens);
  std::shared_ptr<const TokenStore> tokens() const;

  // The access decision for a call to `path`, counted when it is a refusal.
  grpc::Status Check(absl::string_view path, std::optional<absl::string_view> authorization);

  // Cheap (a hash and a few comparisons): run on gRPC's own thread, not a
  // helper pool.
  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

 private:
  ServerMetrics* const metrics_;
  mutable std::mutex mu_;
  std::shared_ptr<const TokenStore> tokens_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_TOKEN_AUTHENTICATOR_H_
