#ifndef SHARDPLAN_BENCH_OPER_EXACT_EXACT_COMPARISON_H_
#define SHARDPLAN_BENCH_OPER_EXACT_EXACT_COMPARISON_H_

// OPER's heuristics beside CBC's optimum on one instance, each solution re-checked
// (exact_check.h): the greedy placement (oper::PlacePartitions, PlacementRule::kOper) against
// the placement MIP, and Algorithm 1 (oper::ReplicateForInference) against the replication MIP
// on the same placement and spare memory.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/oper_exact/cbc_solver.h"
#include "bench/oper_exact/exact_instance.h"
#include "bench/oper_exact/placement_mip.h"
#include "bench/oper_exact/replication_mip.h"

namespace shardplan::oper_exact {

struct PlacementComparison {
  std::vector<int32_t> heuristic_owner;
  PlacementScore heuristic;
  PlacementMipResult exact;
  PlacementScore exact_score;  // recomputed from exact.owner (when CBC found a solution)
};

// FAILED_PRECONDITION when the greedy finds no placement (a partition fits no device) or a
// solution fails its re-check.
absl::StatusOr<PlacementComparison> ComparePlacement(const ExactInstance& instance,
                                                     const MipOptions& options);

struct ReplicationComparison {
  std::vector<int64_t> spare;      // per device (SpareMemory of the placement)
  double model_parallel_us = 0.0;  // no copies
  double heuristic_us = 0.0;       // Algorithm 1, re-checked
  int64_t heuristic_replicas = 0;
  ReplicationMipResult exact;
  double exact_us = 0.0;  // recomputed from exact.copies (when CBC found a solution)
  int64_t exact_replicas = 0;
};

// On the partitions placed by `owner`.
absl::StatusOr<ReplicationComparison> CompareReplication(const ExactInstance& instance,
                                                         const std::vector<int32_t>& owner,
                                                         const MipOptions& options);

// How far `heuristic` may be above the optimum, in percent of `bound` (a lower bound on the
// optimum; the optimum itself when proven): 100 (heuristic - bound) / bound; 0 when both are 0,
// and +inf when only the bound is.
double GapPercent(double heuristic, double bound);

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_EXACT_COMPARISON_H_
