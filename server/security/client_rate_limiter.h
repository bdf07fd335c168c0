#ifndef SHARDPLAN_SERVER_SECURITY_CLIENT_RATE_LIMITER_H_
#define SHARDPLAN_SERVER_SECURITY_CLIENT_RATE_LIMITER_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"

namespace shardplan {

// Caps how often one client identity may do something, e.g. report measurements
// (max_measurements_per_client_per_minute): a token bucket per client that holds a minute's
// worth and refills continuously. Never waits: a call over the rate is refused at once, with a
// Retry-After of when the next one would pass. Remembers at most `max_clients` clients (full
// buckets are forgotten first: they hold nothing a new client would not). Thread-safe.
class ClientRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `per_minute` 0 turns the limiter off. `setting` names it in refusals.
  ClientRateLimiter(int64_t per_minute, std::string setting, size_t max_clients = 10000)
      : per_minute_(per_minute), setting_(std::move(setting)), max_clients_(max_clients) {}

  // OK, or RESOURCE_EXHAUSTED (with a Retry-After) naming the client and the setting.
  absl::Status Take(const std::string& client, Clock::time_point now = Clock::now());

  int64_t per_minute() const { return per_minute_; }

 private:
  struct Bucket {
    double tokens = 0.0;
    Clock::time_point refilled;
  };
  // Refills `bucket` to `now`.
  void Refill(Bucket& bucket, Clock::time_point now) const;
  void ForgetFullBucketsLocked(Clock::time_point now);

  const int64_t per_minute_;
  const std::string setting_;
  const size_t max_clients_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;  // guarded by mu_
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SECURITY_CLIENT_RATE_LIMITER_H_
