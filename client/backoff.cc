#include "client/backoff.h"

#include <algorithm>

namespace shardplan::client {

Backoff::Backoff(const ClientOptions& options)
    : initial_(std::max(options.initial_backoff, absl::ZeroDuration())),
      max_(std::max(options.max_backoff, initial_)),
      multiplier_(std::max(options.backoff_multiplier, 1.0)),
      jitter_(std::clamp(options.jitter, 0.0, 1.0)),
      current_(initial_) {}

absl::Duration Backoff::Next() {
  const absl::Duration base = current_;
  current_ = std::min(current_ * multiplier_, max_);
  if (jitter_ == 0.0) return base;
  return base * absl::Uniform(bitgen_, 1.0 - jitter_, 1.0 + jitter_);
}

void Backoff::Reset() { current_ = initial_; }

}  // namespace shardplan::client
