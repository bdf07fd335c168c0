#ifndef SHARDPLAN_PLANNER_FRAMEWORK_STOP_SIGNAL_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_STOP_SIGNAL_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

#include "absl/status/status.h"

namespace shardplan {

// Tells a running planner to stop: on cancellation (by the job queue, or by an external
// predicate such as "the gRPC client went away") or when a deadline passes. Planners poll
// Check() in their loops (thousands of times per plan); it is cheap and thread-safe.
class StopSignal {
 public:
  using Clock = std::chrono::steady_clock;

  StopSignal() = default;
  // `externally_cancelled` is asked at most once per `poll_interval` across all threads (zero:
  // on every check), for predicates too costly to ask thousands of times a plan: gRPC's
  // ServerContext::IsCancelled takes a lock per call. A cancellation is then seen within one
  // interval of the next check; once seen, it stays.
  explicit StopSignal(std::optional<Clock::time_point> deadline,
                      std::function<bool()> externally_cancelled = nullptr,
                      Clock::duration poll_interval = Clock::duration::zero())
      : deadline_(deadline),
        externally_cancelled_(std::move(externally_cancelled)),
        poll_interval_(poll_interval) {}

  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  void RequestCancel() { cancelled_.store(true, std::memory_order_relaxed); }

  // Tightens the deadline to `deadline` if that is earlier (e.g. the task's own time limit).
  void LimitDeadline(Clock::time_point deadline) {
    if (!deadline_ || deadline < *deadline_) deadline_ = deadline;
  }

  std::optional<Clock::time_point> deadline() const { return deadline_; }

  bool cancelled() const {
    if (cancelled_.load(std::memory_order_relaxed)) return true;
    if (!externally_cancelled_ || !TakePollTurn()) return false;
    if (!externally_cancelled_()) return false;
    cancelled_.store(true, std::memory_order_relaxed);
    return true;
  }
  bool deadline_passed() const { return deadline_ && Clock::now() >= *deadline_; }

  // OK while the planner may go on; CANCELLED or DEADLINE_EXCEEDED otherwise.
  absl::Status Check() const {
    if (cancelled()) return absl::CancelledError("planning was cancelled");
    if (deadline_passed()) return absl::DeadlineExceededError("planning ran past its deadline");
    return absl::OkStatus();
  }

 private:
  // Whether this check may ask the external predicate: always without a poll interval, else
  // when the interval since the last poll has passed and no other thread claimed this turn.
  bool TakePollTurn() const {
    if (poll_interval_ <= Clock::duration::zero()) return true;
    const Clock::rep now = Clock::now().time_since_epoch().count();
    Clock::rep next = next_poll_.load(std::memory_order_relaxed);
    if (now < next) return false;
    return next_poll_.compare_exchange_strong(next, now + poll_interval_.count(),
                                              std::memory_order_relaxed);
  }

  std::optional<Clock::time_point> deadline_;
  std::function<bool()> externally_cancelled_;
  Clock::duration poll_interval_{};
  mutable std::atomic<Clock::rep> next_poll_{0};
  mutable std::atomic<bool> cancelled_{false};
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_STOP_SIGNAL_H_
