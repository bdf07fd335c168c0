#ifndef SHARDPLAN_PLANNER_DOMAIN_ACCESS_FIGURES_H_
#define SHARDPLAN_PLANNER_DOMAIN_ACCESS_FIGURES_H_

// OPER's figures of a plan (ATC'24 Eqs. 1-3; docs/oper.md, "Access figures"), for any plan, so
// that every planner's plans compare on the same figures:
//
//   Eq. 1  memory_bytes[j]     what device j holds (the plan's memory ledger, plan_memory.h)
//   Eq. 2  lookups[j]          rows device j looks up per iteration for every requester: each
//                              requester's batch_size / M samples x pooling_factor x the
//                              group's share of the table's lookups (AccessOfRows), for every
//                              row group whose route (ServingShards) names j; lookup_bytes[j]
//                              those rows' bytes (the group's columns x element bytes)
//   Eq. 3  communication_us    [i][j]: what device i spends fetching those rows from j, at the
//                              task's fetch cost (fetch_cost.h) per row
//
// A column split fetches each column group from its own shard (one fetch each); a replica on
// the requester serves it locally. These are per-row fetches, as OPER counts them, not what a
// pooled all-to-all moves (the traffic matrix, traffic_matrix.h, counts that); the simulator
// is the ground truth of time.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

struct AccessFigures {
  std::vector<int64_t> memory_bytes;  // Eq. 1, per device
  std::vector<double> lookups;        // Eq. 2, per device
  std::vector<double> lookup_bytes;
  std::vector<double> communication_us;  // Eq. 3, M x M row-major (requester, holder)
  // Eq. 3's off-diagonal row and column sums: what each device spends fetching from the others,
  // the bytes it fetches, and what the others spend fetching from it.
  std::vector<double> fetch_us;
  std::vector<double> fetch_bytes;
  std::vector<double> serve_us;
  double total_communication_us = 0.0;  // the off-diagonal sum
  double total_fetch_bytes = 0.0;
  // Degrees of balance (DegreeOfBalance) of memory_bytes, lookup_bytes (OPER's workload, its
  // C6) and fetch_us.
  double memory_balance = 1.0;
  double lookup_balance = 1.0;
  double communication_balance = 1.0;

  int num_devices() const { return static_cast<int>(memory_bytes.size()); }
  double communication(int requester, int holder) const {
    return communication_us[static_cast<size_t>(requester) * num_devices() + holder];
  }
};

// The figures of `plan` on `task`. INVALID_ARGUMENT naming the field for a table the task does
// not have or a device that does not exist (ValidatePlan checks more).
absl::StatusOr<AccessFigures> AccessFiguresOf(const Task& task, const Plan& plan);

// The degree of balance of per-device `values`: min / max (OPER's Table 3; 1 when every value
// is 0 or there are none).
double DegreeOfBalance(const std::vector<double>& values);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_ACCESS_FIGURES_H_
