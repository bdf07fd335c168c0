#ifndef SHARDPLAN_SERVER_GRPC_STATUS_CONVERSION_H_
#define SHARDPLAN_SERVER_GRPC_STATUS_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/strings/string_view.h"
#include "base/status_prefix.h"  // WithPrefix, which callers of this header use
#include "server/retry_after.h"    // WithRetryAfter, RetryAfterMs
#include "grpcpp/support/status.h"

namespace shardplan {

// Longest error message sent to a client; longer ones are cut (they travel in HTTP/2 trailers).
inline constexpr size_t kMaxErrorMessageBytes = 4096;

// absl and gRPC share the canonical code numbers (google.rpc.Code), so codes map one to one;
// the message is kept (cut to kMaxErrorMessageBytes).
grpc::Status ToGrpcStatus(const absl::Status& status);

// "OK", "INVALID_ARGUMENT", ... (the label of shardplan_rpc_requests_total).
std::string GrpcCodeName(grpc::StatusCode code);

// The trailing-metadata key by which a refusal says it is transient (the server is busy right
// now) and after how many milliseconds to try again: HandleRpc sends a status's retry-after
// payload (server/retry_after.h) under it. Clients retry RESOURCE_EXHAUSTED only when it is
// present: a task over the server's limits is refused the same way, and for good.
inline constexpr char kRetryAfterMetadataKey[] = "shardplan-retry-after-ms";

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_STATUS_CONVERSION_H_
