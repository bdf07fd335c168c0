#ifndef SHARDPLAN_CLIENT_GRPC_STATUS_H_
#define SHARDPLAN_CLIENT_GRPC_STATUS_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"

namespace shardplan::client {

// The same code (gRPC and absl number their codes identically) and the message unchanged.
absl::Status ToAbslStatus(const grpc::Status& status);

// The trailing metadata by which the server marks a refusal as transient (the server is busy)
// and says when to try again (proto/shardplan/v1/planner.proto, "Retries").
inline constexpr char kRetryAfterMetadataKey[] = "shardplan-retry-after-ms";

// The server's retry-after hint on a finished call; nullopt when it sent none.
std::optional<absl::Duration> RetryAfter(const grpc::ClientContext& context);

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_GRPC_STATUS_H_
