#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLANNER_H_

#include "planner/algorithms/oper/oper_placement.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

// OPER (Wang et al., USENIX ATC 2024; docs/oper.md) and its two placement baselines (the
// paper's Fig. 10), all on OPER's access- and memory-bounded partitions of frequency-ranked rows
// (oper_partitions.h), each table a ROW_WISE layout in frequency-rank order with one row group
// per partition (oper_layout.h).
//
//   oper           the balanced greedy placement (oper_placement.h), the threshold halved until
//                  the degree of balance of lookups and of memory reaches target_balance; then,
//                  within the task's replication_budget, Algorithm 1's replicas and routes for
//                  INFERENCE (oper_inference_replication.h) or Eq. 4-5's duplication of hot
//                  partitions on every device for TRAINING (oper_training_duplication.h)
//   memory_greedy  every partition, largest first, on the device with the least memory
//   access_greedy  every partition, hottest first, on the device with the fewest lookups
//
// No cost model, no randomness: deterministic. The plan reports the threshold used, the
// partitions, the degrees of balance, the replicas and the communication before and after them
// in its parameters.
//
// Errors: FAILED_PRECONDITION naming the field for a constraint the partitions cannot keep (a
// pinned table, a colocation group, a table that does not allow ROW_WISE) or a partition that
// fits no device (naming the table, the ranks and the bytes); INVALID_ARGUMENT naming the field
// for an unusable access profile or fetch_cost_us.
class OperPlanner : public Algorithm {
 public:
  explicit OperPlanner(oper::PlacementRule rule);

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  oper::PlacementRule rule_;
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLANNER_H_
