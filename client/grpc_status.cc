#include "client/grpc_status.h"

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"

namespace shardplan::client {

absl::Status ToAbslStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

std::optional<absl::Duration> RetryAfter(const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  const auto it = trailers.find(kRetryAfterMetadataKey);
  int64_t ms = 0;
  if (it == trailers.end() ||
      !absl::SimpleAtoi(std::string(it->second.data(), it->second.size()), &ms) || ms < 0) {
    return std::nullopt;
  }
  return absl::Milliseconds(ms);
}

}  // namespace shardplan::client
