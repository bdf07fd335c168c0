#ifndef SHARDPLAN_GROUNDTRUTH_GROUND_TRUTH_H_
#define SHARDPLAN_GROUNDTRUTH_GROUND_TRUTH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"

namespace shardplan {

// A plan's cost on ground truth: the reference plan-cost formula (docs/design.md section 2,
// planner's CostOfDescribedPlacement) with every term measured on a HardwareBackend instead of
// predicted:
//   compute[d] = sum of MeasureCompute over d's fused kernels (shard_kernels.h: TW/CW shards
//                as tables of their columns; row blocks with their share of the lookups; DP
//                replicas at batch / replicas)
//   bw[d]      = MeasureComm(topology, dim sums, zero offsets).backward_ms[d]
//                + MeasureCollectives(topology, demands).backward_ms[d]
//   wait[d]    = compute[d] + bw[d] - min over devices of the same
//   fw[d]      = MeasureComm(topology, dim sums, waits).forward_ms[d]
//                + MeasureCollectives(topology, demands).forward_ms[d]
//   cost       = max over d of compute[d] + bw[d] + fw[d]
// with the task's topology (EvaluatePlanOnHardware, ScorePlanOnHardware) or none, the backend's
// own machines (ScorePlacementOnHardware, table-wise placements). No TW/CW shard, no all-to-all.
// ROW_WISE, TABLE_ROW_WISE and DATA_PARALLEL shards are costed only by backends that measure
// collectives (sim); elsewhere (cpu) EvaluatePlanOnHardware refuses them with
// FAILED_PRECONDITION naming the table and type.
struct HardwarePlanCost {
  std::vector<double> compute_ms;
  std::vector<double> backward_comm_ms;
  std::vector<double> forward_comm_ms;
  std::vector<double> total_ms;
  double cost_ms = 0.0;
  int bottleneck_device = 0;
  // False when the backend has no interconnect (MeasureComm UNIMPLEMENTED, e.g. cpu): both comm
  // terms are then 0 and the cost is compute only. Reports must label such costs.
  bool comm_measured = true;
};

// Scores device placements given as the tables each device holds (each table's dim and rows are
// the shard's). One entry per device; the backend must have been built for that many devices.
// Errors are the backend's (a comm UNIMPLEMENTED is not an error, see comm_measured).
absl::StatusOr<HardwarePlanCost> ScorePlacementOnHardware(
    const std::vector<std::vector<Table>>& tables_per_device, int64_t batch_size,
    HardwareBackend& backend);

// Fills plan.devices, plan.cost_ms and plan.bottleneck_device from plan.tables exactly as
// EvaluatePlan does (memory, dim sums, shard counts), every cost term measured on `backend` at
// the task's batch size; `comm_measured` (optional) as in HardwarePlanCost. Records what
// measured them: cost_model = the backend's hardware profile, cost_kind "ground_truth".
// INVALID_ARGUMENT when the plan names an unknown table or device; otherwise the backend's
// errors.
absl::Status EvaluatePlanOnHardware(const Task& task, HardwareBackend& backend, Plan& plan,
                                    bool* comm_measured = nullptr);

// Scores `plan` for `task` at the task's batch size. INVALID_ARGUMENT when the plan names an
// unknown table or device (as EvaluatePlan); otherwise the backend's errors.
absl::StatusOr<HardwarePlanCost> ScorePlanOnHardware(const Task& task, const Plan& plan,
                                                     HardwareBackend& backend);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_GROUND_TRUTH_H_
