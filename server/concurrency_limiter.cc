#include "server/concurrency_limiter.h"

#include <algorithm>
#include <utility>

namespace shardplan {

ConcurrencyLimiter::ConcurrencyLimiter(int64_t limit) : limit_(std::max<int64_t>(limit, 1)) {}

std::optional<ConcurrencyLimiter::Slot> ConcurrencyLimiter::TryAcquire(int64_t units) {
  units = Clamp(units);
  // Compare-and-swap rather than add-then-undo, so a burst never refuses a caller that a slot
  // was free for.
  int64_t taken = in_use_.load(std::memory_order_relaxed);
  do {
    if (taken > limit_ - units) return std::nullopt;
  } while (!in_use_.compare_exchange_weak(taken, taken + units, std::memory_order_acquire,
                                          std::memory_order_relaxed));
  return Slot(this, units);
}

ConcurrencyLimiter::Slot& ConcurrencyLimiter::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    units_ = other.units_;
  }
  return *this;
}

void ConcurrencyLimiter::Slot::Release() {
  if (limiter_ != nullptr) {
    limiter_->in_use_.fetch_sub(units_, std::memory_order_release);
    limiter_ = nullptr;
  }
}

}  // namespace shardplan
