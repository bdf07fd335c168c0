#ifndef SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_
#define SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_

#include <atomic>
#include <cstdint>
#include <optional>

namespace shardplan {

// Caps how many callers hold one of `limit` slots at once, without ever waiting: TryAcquire
// fails at once when every slot is taken, so a busy server refuses work instead of queueing it
// behind the caller's deadline. Thread-safe.
//
//   std::optional<ConcurrencyLimiter::Slot> slot = limiter.TryAcquire();
//   if (!slot) return absl::ResourceExhaustedError(...);
//   ...  // the slot is given back when `slot` goes out of scope
class ConcurrencyLimiter {
 public:
  // One taken slot; given back on destruction. Move-only.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : limiter_(other.limiter_) { other.limiter_ = nullptr; }
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { Release(); }

   private:
    friend class ConcurrencyLimiter;
    explicit Slot(ConcurrencyLimiter* limiter) : limiter_(limiter) {}
    void Release();

    ConcurrencyLimiter* limiter_;  // null once moved from
  };

  // `limit` below 1 counts as 1.
  explicit ConcurrencyLimiter(int64_t limit);
  ConcurrencyLimiter(const ConcurrencyLimiter&) = delete;
  ConcurrencyLimiter& operator=(const ConcurrencyLimiter&) = delete;

  // A slot, or nullopt when `limit()` slots are taken. Must not outlive the limiter.
  std::optional<Slot> TryAcquire();

  int64_t limit() const { return limit_; }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_CONCURRENCY_LIMITER_H_
