#ifndef SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_
#define SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>

namespace shardplan {

// Caps how many callers hold one of `limit` slots at once, without ever waiting: TryAcquire
// fails at once when every slot is taken, so a busy server refuses work instead of queueing it
// behind the caller's deadline. A caller may take several slots at once (TryAcquire(units)),
// for work weighed by its size: one larger than the whole limit takes all of it, so it runs
// only alone. Thread-safe.
//
//   std::optional<ConcurrencyLimiter::Slot> slot = limiter.TryAcquire();
//   if (!slot) return absl::ResourceExhaustedError(...);
//   ...  // the slot is given back when `slot` goes out of scope
class ConcurrencyLimiter {
 public:
  // One taken slot; given back on destruction. Move-only.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : limiter_(other.limiter_), units_(other.units_) {
      other.limiter_ = nullptr;
    }
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { Release(); }

   private:
    friend class ConcurrencyLimiter;
    Slot(ConcurrencyLimiter* limiter, int64_t units) : limiter_(limiter), units_(units) {}
    void Release();

    ConcurrencyLimiter* limiter_;  // null once moved from
    int64_t units_;
  };

  // `limit` below 1 counts as 1.
  explicit ConcurrencyLimiter(int64_t limit);
  ConcurrencyLimiter(const ConcurrencyLimiter&) = delete;
  ConcurrencyLimiter& operator=(const ConcurrencyLimiter&) = delete;

  // A slot, or nullopt when `limit()` slots are taken. Must not outlive the limiter.
  std::optional<Slot> TryAcquire() { return TryAcquire(1); }
  // `units` slots held as one (clamped to [1, limit()]), or nullopt when fewer are free.
  std::optional<Slot> TryAcquire(int64_t units);
  // What TryAcquire(units) takes.
  int64_t Clamp(int64_t units) const { return std::clamp<int64_t>(units, 1, limit_); }

  int64_t limit() const { return limit_; }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_
