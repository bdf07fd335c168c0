#ifndef SHARDPLAN_BENCH_ALIS_DRIFT_RUN_H_
#define SHARDPLAN_BENCH_ALIS_DRIFT_RUN_H_

// One drifting trace through ALIS, its variants and the baselines (bench/alis_drift.cc): every
// method starts from the same plan, re-plans at the end of every window from that window's
// statistics, and is measured on the next window, which no method has seen.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lab/traces/drifting_traffic.h"
#include "planner/algorithms/alis/alis_replan.h"
#include "planner/traffic/cooccurrence.h"
#include "planner/traffic/request_cost.h"

namespace shardplan::bench {

struct DriftTrace {
  traces::DriftingTrafficOptions traffic;  // its drift_every is set from the two below
  int64_t window_requests = 20000;
  int drift_every_windows = 2;
  int windows = 14;
  int shards = 8;
  CooccurrenceLimits limits;
};

// A method under test: an ALIS Params, or a fixed plan ("range", "hash").
struct DriftMethod {
  std::string label;
  alis::Params params;
  enum class Fixed { kNo, kRange, kHash } fixed = Fixed::kNo;
};

// What one method did at one window (w >= 2: the first window whose plans differ).
struct WindowRecord {
  std::string method;
  int window = 0;
  int since_drift = 0;     // 0: the window right after a drift (the plan predates it)
  WindowCost cost;         // of the plan made from window w - 1, on window w
  int64_t rows_moved = 0;  // by the update at the end of window w - 1
  int64_t bytes_moved = 0;
  double update_ms = 0.0;  // the update's CPU time (ThreadCpuMs): robust to a shared machine
  int iterations = 0;      // propagation passes of that update
  double row_imbalance = 0.0;
};

// CPU milliseconds this thread has used. The updates are single-threaded, so their CPU time is
// their wall time on an idle core, whatever else the machine runs.
double ThreadCpuMs();

// Runs `methods` over `trace` seeded by `seed`; `progress(window)` after each window.
absl::StatusOr<std::vector<WindowRecord>> RunDriftTrace(const DriftTrace& trace, uint64_t seed,
                                                        const std::vector<DriftMethod>& methods,
                                                        const std::function<void(int)>& progress);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_ALIS_DRIFT_RUN_H_
