#include "server/log_rate_limiter.h"

#include <algorithm>

namespace shardplan {

void LogRateLimiter::Expire(Clock::time_point now, std::vector<Suppressed>& ended) {
  while (!order_.empty() && order_.front().first + window_ <= now) {
    const auto it = entries_.find(order_.front().second);
    if (it != entries_.end() && it->second.start == order_.front().first) {
      if (it->second.suppressed > 0) {
        ended.push_back({it->first, it->second.level, it->second.suppressed});
      }
      entries_.erase(it);
    }
    order_.pop_front();
  }
}

bool LogRateLimiter::Admit(absl::string_view key, LogLevel level, Clock::time_point now,
                           std::vector<Suppressed>& ended) {
  if (limit_ <= 0) return true;
  Expire(now, ended);
  const auto it = entries_.find(std::string(key));
  if (it == entries_.end()) {
    if (entries_.size() >= max_keys_) return true;  // untracked rather than unbounded
    entries_.emplace(std::string(key), Entry{now, 1, 0, level});
    order_.emplace_back(now, std::string(key));
    return true;
  }
  Entry& entry = it->second;
  if (entry.written < limit_) {
    ++entry.written;
    return true;
  }
  if (entry.suppressed == 0 || level > entry.level) entry.level = level;
  ++entry.suppressed;
  return false;
}

std::vector<LogRateLimiter::Suppressed> LogRateLimiter::Flush() {
  std::vector<Suppressed> flushed;
  for (const auto& [key, entry] : entries_) {
    if (entry.suppressed > 0) flushed.push_back({key, entry.level, entry.suppressed});
  }
  std::sort(flushed.begin(), flushed.end(),
            [](const Suppressed& a, const Suppressed& b) { return a.key < b.key; });
  entries_.clear();
  order_.clear();
  return flushed;
}

}  // namespace shardplan
