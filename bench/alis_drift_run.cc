#include "bench/alis_drift_run.h"

#include <time.h>

#include <utility>

#include "base/status_macros.h"

namespace shardplan::bench {
namespace {

struct Window {
  RequestBatch requests;
  CooccurrenceStats stats;
};

absl::StatusOr<Window> NextWindow(const DriftTrace& trace, traces::DriftingTraffic& traffic) {
  SHARDPLAN_ASSIGN_OR_RETURN(CooccurrenceCollector collector,
                             CooccurrenceCollector::Create(trace.limits));
  Window window;
  std::vector<uint64_t> request;
  for (int64_t i = 0; i < trace.window_requests; ++i) {
    traffic.Next(request);
    window.requests.Add(request);
    collector.Add(request);
  }
  window.stats = std::move(collector).Finish();
  return window;
}

struct Running {
  const DriftMethod* method = nullptr;
  RowShardMap plan;
  alis::State state;
  int64_t rows_moved = 0, bytes_moved = 0;
  double update_ms = 0.0;
  int iterations = 0;
};

}  // namespace

double ThreadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

absl::StatusOr<std::vector<WindowRecord>> RunDriftTrace(const DriftTrace& trace, uint64_t seed,
                                                        const std::vector<DriftMethod>& methods,
                                                        const std::function<void(int)>& progress) {
  traces::DriftingTrafficOptions options = trace.traffic;
  options.seed = seed;
  options.drift_every = trace.window_requests * trace.drift_every_windows;
  SHARDPLAN_ASSIGN_OR_RETURN(traces::DriftingTraffic traffic,
                             traces::DriftingTraffic::Create(options));
  SHARDPLAN_ASSIGN_OR_RETURN(RowShardMap space,
                             RowShardMap::Create(traffic.tables(), trace.shards));
  SHARDPLAN_ASSIGN_OR_RETURN(Window window, NextWindow(trace, traffic));
  // Every co-occurrence method starts from the same plan: a full re-shard of window 0 (the
  // paper's optional pre-training, section 2.6 of the notes).
  alis::Params bootstrap_params;
  bootstrap_params.seed = seed;
  const RowShardMap bootstrap = alis::FullReshard(space, window.stats, bootstrap_params, 0);
  std::vector<Running> running;
  for (const DriftMethod& method : methods) {
    Running r{.method = &method};
    switch (method.fixed) {
      case DriftMethod::Fixed::kRange:
        r.plan = alis::RangePlan(space);
        break;
      case DriftMethod::Fixed::kHash:
        r.plan = alis::HashPlan(space, seed);
        break;
      case DriftMethod::Fixed::kNo:
        r.plan = bootstrap;
        break;
    }
    running.push_back(std::move(r));
  }
  const RequestLatencyModel model = A100NvlinkHostLatencyModel();
  std::vector<WindowRecord> records;
  for (int w = 1; w < trace.windows; ++w) {
    SHARDPLAN_ASSIGN_OR_RETURN(window, NextWindow(trace, traffic));
    for (Running& r : running) {
      // The plan made from window w - 1, measured on window w: held out.
      SHARDPLAN_ASSIGN_OR_RETURN(WindowCost cost, CostOfWindow(r.plan, window.requests, model));
      if (w >= 2) {
        records.push_back(
            WindowRecord{.method = r.method->label,
                         .window = w,
                         .since_drift = w % trace.drift_every_windows,
                         .cost = cost,
                         .rows_moved = r.rows_moved,
                         .bytes_moved = r.bytes_moved,
                         .update_ms = r.update_ms,
                         .iterations = r.iterations,
                         .row_imbalance = SummarizeRowShardMap(r.plan).row_imbalance});
      }
      if (r.method->fixed != DriftMethod::Fixed::kNo) continue;
      alis::RecordMeasuredCost(r.state, cost.mean_latency_us);
      alis::Params params = r.method->params;
      params.seed = seed;
      const double start = ThreadCpuMs();
      SHARDPLAN_ASSIGN_OR_RETURN(alis::Update update,
                                 alis::Replan(r.plan, std::move(r.state), window.stats, params));
      r.update_ms = ThreadCpuMs() - start;
      r.plan = std::move(update.plan);
      r.state = std::move(update.state);
      r.rows_moved = update.delta.rows_moved;
      r.bytes_moved = update.delta.bytes_moved;
      r.iterations = update.stats.iterations;
    }
    progress(w);
  }
  return records;
}

}  // namespace shardplan::bench
