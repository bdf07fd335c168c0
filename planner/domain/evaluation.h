#ifndef SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_
#define SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_

#include <vector>

#include "absl/status/status.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Per-device cost breakdown of a placement under the reference plan-cost formula
// (NeuroShard's simulator, docs/design.md section 2):
//   compute[d] = ComputeCost(shards on d)
//   bw[d]      = BackwardCommCosts(dim sums)[d]
//   wait[d]    = (compute[d] + bw[d]) - min over devices of the same
//   fw[d]      = ForwardCommCosts(dim sums, waits)[d]
//   cost       = max over d of (compute[d] + bw[d] + fw[d])
struct PlacementCost {
  std::vector<double> compute_ms;
  std::vector<double> backward_comm_ms;
  std::vector<double> forward_comm_ms;
  std::vector<double> total_ms;
  double cost_ms = 0.0;
  int bottleneck_device = 0;  // the lowest device index whose total is cost_ms
};

// `shards_per_device[d]` lists the shards on device d; one entry per device.
PlacementCost CostOfPlacement(const CostModel& model, const CostContext& context,
                              const std::vector<std::vector<ShardView>>& shards_per_device);

// Fills plan.devices, plan.cost_ms and plan.bottleneck_device from plan.tables, and records
// what costed them: cost_model = model.id(), cost_kind "simulated" (a cost model's prediction).
// The plan must name only tables of the task and valid devices (ValidatePlan checks more);
// otherwise an INVALID_ARGUMENT error names the offending field.
absl::Status EvaluatePlan(const Task& task, const CostModel& model, Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_
