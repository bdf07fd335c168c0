#include "server/planning_time_cap.h"

#include "absl/strings/str_cat.h"

namespace shardplan {

using SteadyClock = std::chrono::steady_clock;

std::optional<SteadyClock::time_point> CapPlanningTime(StopSignal& stop,
                                                       int64_t max_planning_time_ms) {
  if (max_planning_time_ms <= 0) return std::nullopt;
  const auto cap = SteadyClock::now() + std::chrono::milliseconds(max_planning_time_ms);
  const bool binding = !stop.deadline() || cap < *stop.deadline();
  stop.LimitDeadline(cap);
  return binding ? std::optional(cap) : std::nullopt;
}

absl::Status CapReason(const absl::Status& status, std::optional<SteadyClock::time_point> cap,
                       int64_t max_planning_time_ms) {
  if (!cap || SteadyClock::now() < *cap ||
      status.code() != absl::StatusCode::kDeadlineExceeded) {
    return status;
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "max_planning_time_ms: planning stopped at this server's cap of ", max_planning_time_ms,
      " ms; anytime algorithms return their best plan at the cap, this one had none"));
}

}  // namespace shardplan
