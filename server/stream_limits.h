#ifndef SHARDPLAN_SERVER_STREAM_LIMITS_H_
#define SHARDPLAN_SERVER_STREAM_LIMITS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "server/concurrency_limiter.h"
#include "server/security/client_limiter.h"

namespace shardplan {

// Bounds the WatchPlan streams open at once, per client (max_streams_per_client) and in all
// (max_streams). A stream holds one of gRPC's synchronous handler threads for as long as it is
// open, so without these one client opening streams took every thread and every other
// client's calls were refused (issue 18). Never waits. Thread-safe.
class StreamLimits {
 public:
  // One open stream; both slots are given back when it is destroyed. Move-only.
  struct Ticket {
    ClientLimiter::Slot client;
    ConcurrencyLimiter::Slot total;
  };

  // `per_client` 0: no per-client bound. `total` below 1 counts as 1.
  StreamLimits(int64_t total, int64_t per_client);

  // A ticket for a stream of `client`, or RESOURCE_EXHAUSTED naming the setting (with a
  // retry-after hint) when the client or the server is at its bound.
  absl::StatusOr<Ticket> Open(const std::string& client);

  int64_t open() const { return total_.in_use(); }
  int64_t total_limit() const { return total_.limit(); }

 private:
  ConcurrencyLimiter total_;
  ClientLimiter per_client_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STREAM_LIMITS_H_
