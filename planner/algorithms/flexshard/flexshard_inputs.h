#ifndef SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_INPUTS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_INPUTS_H_

// A task as FlexShard's tier arithmetic reads it (docs/flexshard.md, "Inputs").

#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/flexshard/flexshard_tiers.h"
#include "planner/domain/rank_frequency.h"
#include "planner/domain/task.h"

namespace shardplan::flexshard {

// The tiers' inputs for every table of `task`, with the curves they point into (keep both
// alive together): each table's curve (CurveOf at the task's batch), L its pooling factor, its
// dim and element bytes; hosts and devices per host from the topology (INVALID_ARGUMENT when the
// last host is not full: FlexShard's Flex tier needs W devices on every host); B the local
// batch; the objective; the budget on the smallest device; the bandwidths: the all-to-all across
// hosts at the inter-host bandwidth (one NIC per device), within a host at the intra-host one,
// both all-reduces at the topology's all-reduce bandwidth.
struct TaskTierInputs {
  std::vector<RankFrequencyCurve> curves;
  TierInputs inputs;
};
absl::StatusOr<TaskTierInputs> TierInputsOf(const Task& task);

}  // namespace shardplan::flexshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_INPUTS_H_
