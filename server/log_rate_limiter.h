#ifndef SHARDPLAN_SERVER_LOG_RATE_LIMITER_H_
#define SHARDPLAN_SERVER_LOG_RATE_LIMITER_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/log_format.h"

namespace shardplan {

// Bounds repeated log lines (log_repeat_limit): at most `limit` lines with the same key in a
// window of `window` that starts with the key's first line; the rest are suppressed and counted.
// When the window of a key with suppressed lines ends, the next Admit (of any key) or Flush
// reports it, so that a line can say how many were dropped. Keys of ended windows are
// forgotten, so memory follows the keys of the last window, at most `max_keys` of them (beyond
// that, new keys are let through untracked). Not thread-safe: the logger holds its lock.
class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // Lines of one key that a window suppressed, reported once.
  struct Suppressed {
    std::string key;
    LogLevel level = LogLevel::kInfo;  // the highest level among them
    int64_t count = 0;
  };

  // limit 0: every line passes.
  LogRateLimiter(int64_t limit, Clock::duration window, size_t max_keys = 10000)
      : limit_(limit), window_(window), max_keys_(max_keys) {}

  // Whether a line of `key` at `level` may be written `now`. Appends to `ended` the keys whose
  // window ended before `now` with lines suppressed.
  bool Admit(absl::string_view key, LogLevel level, Clock::time_point now,
             std::vector<Suppressed>& ended);

  // Every key with lines suppressed in its current window, reported and forgotten.
  std::vector<Suppressed> Flush();

  size_t tracked_keys() const { return entries_.size(); }

 private:
  struct Entry {
    Clock::time_point start;
    int64_t written = 0;
    int64_t suppressed = 0;
    LogLevel level = LogLevel::kInfo;
  };

  void Expire(Clock::time_point now, std::vector<Suppressed>& ended);

  const int64_t limit_;
  const Clock::duration window_;
  const size_t max_keys_;
  std::unordered_map<std::string, Entry> entries_;
  // (window start, key) in the order windows started: the ended ones are at the front.
  std::deque<std::pair<Clock::time_point, std::string>> order_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_LOG_RATE_LIMITER_H_
