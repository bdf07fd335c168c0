#ifndef SHARDPLAN_BENCH_OPER_EXACT_PLACEMENT_MIP_H_
#define SHARDPLAN_BENCH_OPER_EXACT_PLACEMENT_MIP_H_

// The placement of OPER's partitions as a mixed-integer program (docs/oper.md, "Exact check"):
// every partition on exactly one device, within each device's capacity, minimising
//
//   max_d lookups_d / mean lookups  +  max_d memory_d / mean memory
//
// (lookups: Eq. 2's bytes looked up per iteration, oper::LookupBytes; memory: Eq. 1). Each term
// is 1 at perfect balance, so the value is >= 2. OPER balances both (its target is both degrees
// of balance, min / max, above 0.95); min / max is not linear, the largest load is, and
// normalising by the mean weighs the two equally whatever their units.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/oper_exact/cbc_solver.h"
#include "planner/algorithms/oper/oper_partitions.h"

namespace shardplan::oper_exact {

struct PlacementScore {
  double lookup_ratio = 1.0;    // max / mean of the per-device lookups (1 when all are 0)
  double memory_ratio = 1.0;    // max / mean of the per-device memory
  double lookup_balance = 1.0;  // min / max (DegreeOfBalance)
  double memory_balance = 1.0;
  double value() const { return lookup_ratio + memory_ratio; }
};

// The objective and the degrees of balance of `owner` (a device per partition).
PlacementScore ScorePlacement(const std::vector<oper::Partition>& partitions,
                              const std::vector<int32_t>& owner, int devices);

struct PlacementMipResult {
  MipResult mip;               // objective and bound in the units of PlacementScore::value
  std::vector<int32_t> owner;  // the best solution (empty without one)
};

// Solves the model. `start` (a feasible owner per partition, or empty) warm-starts CBC. With
// equal capacities the devices are interchangeable, so partition p may only go to devices
// 0..p (symmetry breaking; it loses no solution up to relabelling).
absl::StatusOr<PlacementMipResult> SolvePlacementMip(const std::vector<oper::Partition>& partitions,
                                                     const std::vector<int64_t>& capacities,
                                                     const MipOptions& options,
                                                     const std::vector<int32_t>& start);

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_PLACEMENT_MIP_H_
