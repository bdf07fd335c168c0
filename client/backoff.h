#ifndef SHARDPLAN_CLIENT_BACKOFF_H_
#define SHARDPLAN_CLIENT_BACKOFF_H_

#include "absl/random/random.h"
#include "absl/time/time.h"
#include "client/client_options.h"

namespace shardplan::client {

// The sleeps between attempts of one call: initial_backoff, then x backoff_multiplier per
// attempt, capped at max_backoff, each scaled by a random factor in [1 - jitter, 1 + jitter].
class Backoff {
 public:
  explicit Backoff(const ClientOptions& options);

  // The sleep before the next attempt; advances the schedule.
  absl::Duration Next();
  // Back to initial_backoff (a stream made progress).
  void Reset();

 private:
  absl::Duration initial_;
  absl::Duration max_;
  double multiplier_;
  double jitter_;
  absl::Duration current_;
  absl::BitGen bitgen_;
};

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_BACKOFF_H_
