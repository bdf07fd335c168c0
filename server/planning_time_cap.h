#ifndef SHARDPLAN_SERVER_PLANNING_TIME_CAP_H_
#define SHARDPLAN_SERVER_PLANNING_TIME_CAP_H_

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "planner/framework/stop_signal.h"

namespace shardplan {

// The server's search budget (ServerConfig::max_planning_time_ms), shared by Plan calls and
// jobs, new or resumed after a restart.

// Tightens `stop` to `max_planning_time_ms` from now (0: no cap). Returns the cap's time when
// it is earlier than the deadline `stop` already had, i.e. when the cap is what binds.
std::optional<std::chrono::steady_clock::time_point> CapPlanningTime(StopSignal& stop,
                                                                     int64_t max_planning_time_ms);

// A planner that gave up at the server's cap (not the caller's deadline, nor the task's own
// shorter limit) is told which limit stopped it; any other status is returned unchanged.
absl::Status CapReason(const absl::Status& status,
                       std::optional<std::chrono::steady_clock::time_point> cap,
                       int64_t max_planning_time_ms);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_TIME_CAP_H_
