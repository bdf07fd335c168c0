#ifndef SHARDPLAN_CLIENT_CLI_PLAN_PLOT_H_
#define SHARDPLAN_CLIENT_CLI_PLAN_PLOT_H_

// `shardplan plot`'s picture: one or more plans of a task as an SVG, side by side on the same
// scales. Per plan, a title (algorithm, cost model, cost) and two panels over its devices: a
// stacked bar of compute, forward and backward communication ms per device, the bottleneck
// device outlined and labelled with the plan's cost; and memory used against capacity, GiB.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

struct PlotPlan {
  shardplan::v1::Plan plan;
  std::string source;  // where the plan came from, under its title: "plan.json", "job 0ddb..."
};

struct PlotOptions {
  std::string title;  // "": "Cost and memory per device: N devices"
};

// The SVG document. INVALID_ARGUMENT, naming the plan's source, for a plan without the
// per-device figures (no devices, as in a TorchRec plan; a device without memory capacity; a
// time that is negative or not a number; the bottleneck device missing; devices not numbered
// 0..N-1), and for plans of different device counts.
absl::StatusOr<std::string> PlotPlansSvg(const std::vector<PlotPlan>& plans,
                                         const PlotOptions& options = {});

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_PLAN_PLOT_H_
