#include "server/grpc/token_authenticator.h"

#include <utility>

#include "server/metrics.h"
#include "server/grpc/status_conversion.h"

namespace shardplan {
namespace {

std::optional<absl::string_view> Find(const grpc::AuthMetadataProcessor::InputMetadata& metadata,
                                      absl::string_view key) {
  const auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (it == metadata.end()) return std::nullopt;
  return absl::string_view(it->second.data(), it->second.size());
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(std::shared_ptr<const TokenStore> tokens,
                                       ServerMetrics* metrics)
    : metrics_(metrics), tokens_(std::move(tokens)) {}

void TokenAuthenticator::ReplaceTokens(std::shared_ptr<const TokenStore> tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  tokens_ = std::move(tokens);
}

std::shared_ptr<const TokenStore> TokenAuthenticator::tokens() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tokens_;
}

grpc::Status TokenAuthenticator::Check(absl::string_view path,
                                       std::optional<absl::string_view> authorization) {
  const AccessDecision decision = DecideAccess(*tokens(), path, authorization);
  if (decision.status.ok()) return grpc::Status::OK;
  grpc::Status status = ToGrpcStatus(decision.status);
  if (metrics_ != nullptr) {
    metrics_->RecordAuthRejection(GrpcCodeName(status.error_code()), MethodLabel(path));
  }
  return status;
}

grpc::Status TokenAuthenticator::Process(const InputMetadata& auth_metadata,
                                         grpc::AuthContext* /*context*/,
                                         OutputMetadata* /*consumed_auth_metadata*/,
                                         OutputMetadata* /*response_metadata*/) {
  // The token stays in the call's metadata: handlers map it to the client's
  // name.
  return Check(Find(auth_metadata, ":path").value_or(""), Find(auth_metadata, "authorization"));
}

}  // namespace shardplan
