#include "server/stream_limits.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/retry_after.h"

namespace shardplan {

StreamLimits::StreamLimits(int64_t total, int64_t per_client)
    : total_(total),
      per_client_(per_client, {.setting = "max_streams_per_client",
                               .holding = "WatchPlan streams open",
                               .advice = "close one, or poll with GetPlan"}) {}

absl::StatusOr<StreamLimits::Ticket> StreamLimits::Open(const std::string& client) {
  absl::StatusOr<ClientLimiter::Slot> mine = per_client_.Acquire(client);
  if (!mine.ok()) return mine.status();
  std::optional<ConcurrencyLimiter::Slot> slot = total_.TryAcquire();
  if (!slot.has_value()) {
    // Transient: streams end when their jobs do.
    return WithRetryAfter(
        absl::ResourceExhaustedError(absl::StrCat(
            "max_streams: ", total_.limit(),
            " WatchPlan streams are open on this server, its limit (it keeps the other handler "
            "threads for other calls); retry later, or poll with GetPlan")),
        absl::Seconds(1));
  }
  return Ticket{*std::move(mine), *std::move(slot)};
}

}  // namespace shardplan
