#ifndef SHARDPLAN_SERVER_RETRY_AFTER_H_
#define SHARDPLAN_SERVER_RETRY_AFTER_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace shardplan {

// A refusal that says it is transient (the server is busy right now) and after how long to
// try again, as a payload of the status. The gRPC layer sends it to clients as trailing metadata
// (server/grpc/status_conversion.h, kRetryAfterMetadataKey); clients retry RESOURCE_EXHAUSTED
// only when it is present, since a task over the server's limits is refused the same way, and
// for good.

// `status` marked as worth retrying after `delay`.
absl::Status WithRetryAfter(absl::Status status, absl::Duration delay);
// The delay of a status marked by WithRetryAfter, in milliseconds; nullopt when unmarked.
std::optional<int64_t> RetryAfterMs(const absl::Status& status);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_RETRY_AFTER_H_
