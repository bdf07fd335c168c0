#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_INFERENCE_REPLICATION_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_INFERENCE_REPLICATION_H_

// OPER's communication-oriented data parallelism for inference (section 4.3, Algorithm 1;
// docs/oper.md, "Inference replication"). Round by round, every device that has not stopped
// takes the device it spends the most communication on (the largest off-diagonal CL entry),
// replicates locally the hottest partition it fetches from there that fits its spare memory,
// and every other device that fetches that partition more cheaply from the new replica than
// from its current source is re-routed to it. A device stops when no such partition fits.
//
// The paper's Algorithm 1 as printed has two typos, fixed here: lines 10-18 read `g.access` and
// `g.comm_path` for the partition `p` being replicated, and the device loops run over
// {0, 1, ..., M} instead of {0, ..., M-1}.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/domain/fetch_cost.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::oper {

// Replicates into `available` bytes per device (the spare memory of Algorithm 1's Ava_Mem),
// updating `copies` (routes included). Partitions no device looks up are never replicated.
// Returns the communication matrix after replication (CommunicationMatrix of the result), or
// `stop`'s status when it fires (checked every round).
absl::StatusOr<std::vector<std::vector<double>>> ReplicateForInference(
    const std::vector<Partition>& partitions, const FetchCostMatrix& cost,
    std::vector<int64_t> available, const StopSignal& stop, Copies& copies);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_INFERENCE_REPLICATION_H_
