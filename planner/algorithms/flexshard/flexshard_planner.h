#ifndef SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_PLANNER_H_

#include "planner/framework/algorithm.h"

namespace shardplan {

// FlexShard (Sethi et al., MLSys 2023; docs/flexshard.md): every table's rows merged by access
// probability, the hottest replicated on every device (DP), the next replicated per host with one
// slice per local rank (Flex, 3-tier only), the rest row-wise (RW), memory-neutral against the
// row-wise plan unless the task's replication_budget says otherwise. Tiers from
// flexshard::ComputeTiers, each table's as a ROW_WISE layout in frequency-rank order
// (flexshard_layout.h); the plan reports the tiers, the memory ledger and the breakpoints in its
// parameters (flexshard_report.h). No cost model, no search: deterministic.
//
// Errors: INVALID_ARGUMENT naming the field for a topology whose last host is not full or a
// table whose access profile is unusable; FAILED_PRECONDITION for a constraint FlexShard cannot
// keep (a pinned table, a colocation group, a table that does not allow ROW_WISE) or a tier that
// does not fit a device, naming the table, the tier and the bytes.
class FlexShardPlanner : public Algorithm {
 public:
  FlexShardPlanner();

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  AlgorithmInfo info_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_PLANNER_H_
