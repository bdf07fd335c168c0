#include "server/retry_after.h"

#include <algorithm>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

constexpr absl::string_view kRetryAfterPayload = "type.shardplan.dev/retry-after-ms";

}  // namespace

absl::Status WithRetryAfter(absl::Status status, absl::Duration delay) {
  if (!status.ok()) {
    status.SetPayload(kRetryAfterPayload,
                      absl::Cord(absl::StrCat(std::max<int64_t>(
                          0, absl::ToInt64Milliseconds(delay)))));
  }
  return status;
}

std::optional<int64_t> RetryAfterMs(const absl::Status& status) {
  const auto payload = status.GetPayload(kRetryAfterPayload);  // absl::optional<absl::Cord>
  int64_t ms = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &ms)) return std::nullopt;
  return ms;
}

}  // namespace shardplan
