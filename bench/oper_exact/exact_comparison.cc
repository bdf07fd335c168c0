#include "bench/oper_exact/exact_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/status_macros.h"
#include "bench/oper_exact/exact_check.h"
#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_inference_replication.h"
#include "planner/algorithms/oper/oper_placement.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::oper_exact {

absl::StatusOr<PlacementComparison> ComparePlacement(const ExactInstance& instance,
                                                     const MipOptions& options) {
  PlacementComparison comparison;
  SHARDPLAN_ASSIGN_OR_RETURN(
      const oper::Placement greedy,
      oper::PlacePartitions(instance.tables, instance.partitions, instance.capacities(),
                            oper::PlacementRule::kOper));
  comparison.heuristic_owner = greedy.owner;
  SHARDPLAN_RETURN_IF_ERROR(CheckPlacement(instance, greedy.owner));
  comparison.heuristic = ScorePlacement(instance.partitions, greedy.owner, instance.devices());
  SHARDPLAN_ASSIGN_OR_RETURN(comparison.exact,
                             SolvePlacementMip(instance.partitions, instance.capacities(), options,
                                               comparison.heuristic_owner));
  if (comparison.exact.mip.has_solution) {
    SHARDPLAN_RETURN_IF_ERROR(CheckPlacement(instance, comparison.exact.owner));
    comparison.exact_score =
        ScorePlacement(instance.partitions, comparison.exact.owner, instance.devices());
  }
  return comparison;
}

absl::StatusOr<ReplicationComparison> CompareReplication(const ExactInstance& instance,
                                                         const std::vector<int32_t>& owner,
                                                         const MipOptions& options) {
  ReplicationComparison comparison;
  comparison.spare = SpareMemory(instance, owner);
  const oper::Copies owners = oper::OwnersOnly(owner, instance.devices());
  SHARDPLAN_ASSIGN_OR_RETURN(comparison.model_parallel_us,
                             CheckCopies(instance, owners, comparison.spare));
  oper::Copies algorithm1 = owners;
  const StopSignal never;
  SHARDPLAN_RETURN_IF_ERROR(oper::ReplicateForInference(instance.partitions, instance.cost,
                                                        comparison.spare, never, algorithm1)
                                .status());
  SHARDPLAN_ASSIGN_OR_RETURN(comparison.heuristic_us,
                             CheckCopies(instance, algorithm1, comparison.spare));
  comparison.heuristic_replicas = algorithm1.replicas();
  SHARDPLAN_ASSIGN_OR_RETURN(comparison.exact,
                             SolveReplicationMip(instance.partitions, owner, instance.cost,
                                                 comparison.spare, options, &algorithm1));
  if (comparison.exact.mip.has_solution) {
    SHARDPLAN_ASSIGN_OR_RETURN(comparison.exact_us,
                               CheckCopies(instance, comparison.exact.copies, comparison.spare));
    comparison.exact_replicas = comparison.exact.copies.replicas();
  }
  return comparison;
}

double GapPercent(double heuristic, double bound) {
  if (bound > 0.0) return 100.0 * (heuristic - bound) / bound;
  return heuristic > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace shardplan::oper_exact
