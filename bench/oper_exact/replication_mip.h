#ifndef SHARDPLAN_BENCH_OPER_EXACT_REPLICATION_MIP_H_
#define SHARDPLAN_BENCH_OPER_EXACT_REPLICATION_MIP_H_

// Inference replication as a mixed-integer program (docs/oper.md, "Exact check"): given each
// partition's owner, choose replicas y[p][d] within each device's spare memory and, for every
// requester i, the copy z[p][i][j] it fetches p from, minimising the total communication per
// iteration, Eq. 3's off-diagonal sum  sum_p sum_i sum_{j != i} A_p L[i][j](p) z[p][i][j]
// (oper::CommunicationMatrix's entries, L from planner/domain/fetch_cost.h). Algorithm 1
// (oper_inference_replication.h) is the heuristic for the same problem.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/oper_exact/cbc_solver.h"
#include "planner/algorithms/oper/oper_copies.h"
#include "planner/domain/fetch_cost.h"
#include "planner/algorithms/oper/oper_partitions.h"

namespace shardplan::oper_exact {

struct ReplicationMipResult {
  MipResult mip;        // objective and bound: microseconds per iteration
  oper::Copies copies;  // the best solution: replicas and every requester's path (when found)
};

// Solves the model for partitions on `owner` with `spare` bytes per device for replicas.
// `start` (copies of the same owners, e.g. Algorithm 1's, or null) warm-starts CBC. z is
// continuous: with y fixed, sending each requester to its cheapest copy is optimal, so the
// relaxation of z is exact. Only copies cheaper than the owner are offered to a requester
// (no optimum needs the others). The solution's paths are each requester's cheapest copy.
absl::StatusOr<ReplicationMipResult> SolveReplicationMip(
    const std::vector<oper::Partition>& partitions, const std::vector<int32_t>& owner,
    const FetchCostMatrix& cost, const std::vector<int64_t>& spare, const MipOptions& options,
    const oper::Copies* start);

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_REPLICATION_MIP_H_
