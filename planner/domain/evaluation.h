#ifndef SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_
#define SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_

#include <vector>

#include "absl/status/status.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Per-device cost breakdown of a placement under the reference plan-cost formula
// (NeuroShard's simulator, docs/design.md section 2), with the collectives of row-level and
// data-parallel shards (sharding_semantics.h) added to the comm terms:
//   compute[d] = ComputeCost(shards on d)
//   bw[d]      = BackwardCommCosts(dim sums)[d] + CostCollectives(...).backward_ms[d]
//   wait[d]    = (compute[d] + bw[d]) - min over devices of the same
//   fw[d]      = ForwardCommCosts(dim sums, waits)[d] + CostCollectives(...).forward_ms[d]
//   cost       = max over d of (compute[d] + bw[d] + fw[d])
struct PlacementCost {
  std::vector<double> compute_ms;
  std::vector<double> backward_comm_ms;
  std::vector<double> forward_comm_ms;
  std::vector<double> total_ms;
  double cost_ms = 0.0;
  int bottleneck_device = 0;  // the lowest device index whose total is cost_ms
};

// `shards_per_device[d]` lists the shards on device d; one entry per device. The dim sums are
// those of its column-level shards; no other collective is costed (the searches' placements).
PlacementCost CostOfPlacement(const CostModel& model, const CostContext& context,
                              const std::vector<std::vector<ShardView>>& shards_per_device);

// The same for a placement described by DescribePlacement, collectives included.
PlacementCost CostOfDescribedPlacement(const CostModel& model, const CostContext& context,
                                       const PlacementQueries& queries);

// Fills plan.devices, plan.cost_ms and plan.bottleneck_device from plan.tables, and records
// what costed them: cost_model = model.id(), cost_kind "simulated" (a cost model's prediction).
// The plan must name only tables of the task and valid devices (ValidatePlan checks more);
// otherwise an INVALID_ARGUMENT error names the offending field. A plan with a sharding type the
// model does not cost (CostModel::CostsShardingType) is FAILED_PRECONDITION naming the table and
// the type: no plan gets a cost its model does not understand.
absl::Status EvaluatePlan(const Task& task, const CostModel& model, Plan& plan);

// OK when `model` costs every table of `plan` (a valid plan of `task`): its sharding type, and
// its row layout where routed; otherwise EvaluatePlan's FAILED_PRECONDITION for the first table
// it cannot cost. What the server's choice of a model for EvaluatePlan checks.
absl::Status CheckModelCostsPlan(const Task& task, const Plan& plan, const CostModel& model);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_EVALUATION_H_
