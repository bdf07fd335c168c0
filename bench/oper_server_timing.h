#ifndef SHARDPLAN_BENCH_OPER_SERVER_TIMING_H_
#define SHARDPLAN_BENCH_OPER_SERVER_TIMING_H_

// OPER planned on the path users take: a real shardplan-server (started on free loopback ports
// with no plan store and no metrics endpoint) asked through the C++ client, interleaved with the
// same plans in-process, so that both sides of the ratio come from one run (bench/oper_sweeps).

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_support.h"
#include "nlohmann/json.hpp"
#include "planner/domain/cost_model.h"
#include "planner/framework/algorithm.h"

namespace shardplan::bench {

struct ServedSetting {
  std::string label;
  Task task;                                  // validated and canonical
  std::map<std::string, std::string> params;  // oper's, on both paths
};

// Per setting: one unmeasured pass each way (warm caches and memos on both sides), then `rounds`
// rounds, alternating which path goes first, every server call with the cache bypassed. In-process
// is PlanTask(`oper`, task, `model`) with the setting's parameters; the server chooses its own
// model (the row-layout planners' default, analytic@1). An entry: label, each path's median wall
// time and median planning time (the plan's stats.planning_time_ms), the server's cost model, the
// ratio of the medians of wall times, and same_communication (both plans report the same
// comm_us.with_copies). Progress steps once per measured call.
absl::StatusOr<nlohmann::json> TimeThroughServer(const std::vector<ServedSetting>& settings,
                                                 int rounds, const std::string& models_dir,
                                                 const Algorithm& oper, const CostModel& model,
                                                 Progress& progress);

// The entries as a markdown table with a paragraph saying what each column holds.
std::string ServerTimingReport(const nlohmann::json& entries);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_OPER_SERVER_TIMING_H_
