#ifndef SHARDPLAN_SERVER_STATUS_CONVERSION_H_
#define SHARDPLAN_SERVER_STATUS_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/strings/string_view.h"
#include "base/status_prefix.h"  // WithPrefix, which callers of this header use
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
// now) and after how many milliseconds to try again. Clients retry RESOURCE_EXHAUSTED only when
// it is present: a task over the server's limits is refused the same way, and for good.
inline constexpr char kRetryAfterMetadataKey[] = "shardplan-retry-after-ms";

// `status` marked as worth retrying after `delay` (a payload that RetryAfterMs reads back and
// HandleRpc sends as kRetryAfterMetadataKey).
absl::Status WithRetryAfter(absl::Status status, absl::Duration delay);
// The delay of a status marked by WithRetryAfter, in milliseconds; nullopt when unmarked.
std::optional<int64_t> RetryAfterMs(const absl::Status& status);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STATUS_CONVERSION_H_
