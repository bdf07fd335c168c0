#include "server/security/client_rate_limiter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/retry_after.h"

namespace shardplan {

void ClientRateLimiter::Refill(Bucket& bucket, Clock::time_point now) const {
  const double minutes =
      std::chrono::duration<double, std::ratio<60>>(now - bucket.refilled).count();
  if (minutes > 0) {
    bucket.tokens = std::min(static_cast<double>(per_minute_),
                             bucket.tokens + minutes * static_cast<double>(per_minute_));
    bucket.refilled = now;
  }
}

void ClientRateLimiter::ForgetFullBucketsLocked(Clock::time_point now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    Refill(it->second, now);
    it = it->second.tokens >= static_cast<double>(per_minute_) ? buckets_.erase(it) : std::next(it);
  }
}

absl::Status ClientRateLimiter::Take(const std::string& client, Clock::time_point now) {
  if (per_minute_ <= 0) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  auto found = buckets_.find(client);
  if (found == buckets_.end()) {
    if (buckets_.size() >= max_clients_) ForgetFullBucketsLocked(now);
    // Past the bound with every bucket in use, a new client is let through untracked rather
    // than another client forgotten (which would refill it).
    if (buckets_.size() >= max_clients_) return absl::OkStatus();
    found = buckets_.emplace(client, Bucket{static_cast<double>(per_minute_), now}).first;
  }
  Bucket& bucket = found->second;
  Refill(bucket, now);
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return absl::OkStatus();
  }
  const double wait_minutes = (1.0 - bucket.tokens) / static_cast<double>(per_minute_);
  return WithRetryAfter(absl::ResourceExhaustedError(
                            absl::StrCat(setting_, ": client \"", client, "\" sent ", per_minute_,
                                         " in the last minute, this server's limit; "
                                         "retry later")),
                        absl::Milliseconds(std::ceil(wait_minutes * 60000.0)));
}

}  // namespace shardplan
