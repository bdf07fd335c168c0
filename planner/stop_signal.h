#ifndef SHARDPLAN_PLANNER_STOP_SIGNAL_H_
#define SHARDPLAN_PLANNER_STOP_SIGNAL_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

#include "absl/status/status.h"

namespace shardplan {

// Tells a running planner to stop: on cancellation (by the job queue, or by an external
// predicate such as "the gRPC client went away") or when a deadline passes. Planners poll
// Check() in their loops; it is cheap and thread-safe.
class StopSignal {
 public:
  using Clock = std::chrono::steady_clock;

  StopSignal() = default;
  explicit StopSignal(std::optional<Clock::time_point> deadline,
                      std::function<bool()> externally_cancelled = nullptr)
      : deadline_(deadline), externally_cancelled_(std::move(externally_cancelled)) {}

  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  void RequestCancel() { cancelled_.store(true, std::memory_order_relaxed); }

  // Tightens the deadline to `deadline` if that is earlier (e.g. the task's own time limit).
  void LimitDeadline(Clock::time_point deadline) {
    if (!deadline_ || deadline < *deadline_) deadline_ = deadline;
  }

  std::optional<Clock::time_point> deadline() const { return deadline_; }

  bool cancelled() const {
    return cancelled_.load(std::memory_order_relaxed) ||
           (externally_cancelled_ && externally_cancelled_());
  }
  bool deadline_passed() const { return deadline_ && Clock::now() >= *deadline_; }

  // OK while the planner may go on; CANCELLED or DEADLINE_EXCEEDED otherwise.
  absl::Status Check() const {
    if (cancelled()) return absl::CancelledError("planning was cancelled");
    if (deadline_passed()) return absl::DeadlineExceededError("planning ran past its deadline");
    return absl::OkStatus();
  }

 private:
  std::optional<Clock::time_point> deadline_;
  std::function<bool()> externally_cancelled_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_STOP_SIGNAL_H_
