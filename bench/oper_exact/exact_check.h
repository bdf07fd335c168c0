#ifndef SHARDPLAN_BENCH_OPER_EXACT_EXACT_CHECK_H_
#define SHARDPLAN_BENCH_OPER_EXACT_EXACT_CHECK_H_

// Re-checks a MIP's solution with the planner's own code: capacities and the replication budget
// on every device, paths that end at a copy, and the row-layout plan OPER would emit for it
// (oper::OperShardings) through ValidatePlan; the communication is recomputed by
// oper::CommunicationMatrix, not taken from the solver.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/oper_exact/exact_instance.h"
#include "planner/algorithms/oper/oper_copies.h"

namespace shardplan::oper_exact {

// OK when every partition sits on one device within the capacities and the owners-only plan
// validates; FAILED_PRECONDITION naming what does not.
absl::Status CheckPlacement(const ExactInstance& instance, const std::vector<int32_t>& owner);

// The communication per iteration (microseconds, Eq. 3's off-diagonal total) of `copies`, after
// checking its owners (CheckPlacement), that replicas fit `spare` per device, that every path
// ends at a copy and that the plan validates; FAILED_PRECONDITION naming what does not.
absl::StatusOr<double> CheckCopies(const ExactInstance& instance, const oper::Copies& copies,
                                   const std::vector<int64_t>& spare);

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_EXACT_CHECK_H_
