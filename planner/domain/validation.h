#ifndef SHARDPLAN_PLANNER_DOMAIN_VALIDATION_H_
#define SHARDPLAN_PLANNER_DOMAIN_VALIDATION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Bounds that keep hostile or mistaken input from exhausting the service.
struct TaskLimits {
  int64_t max_tables = 100000;
  int64_t max_devices = 4096;
  int64_t max_rows = int64_t{1} << 40;  // per table
  int32_t max_dim = 1 << 16;            // per table
  double max_pooling_factor = 1e6;
  int64_t max_batch_size = int64_t{1} << 32;
  int64_t max_colocation_groups = 10000;
  // Per table name. Names come back in every plan and error, so a megabyte name would be
  // copied into every response and log line; real ones are tens of bytes.
  int64_t max_name_bytes = 1024;
};

// A task's own planning-time limit: at most a day. Deadlines are steady-clock nanoseconds, so
// a limit near 1e13 ms would overflow them (planning then stopped at once).
inline constexpr int64_t kMaxTaskPlanningTimeMs = int64_t{24} * 60 * 60 * 1000;
// How far an access histogram's bins may sum from 1: the reference's histograms are within 4e-6,
// and 17 values rounded to 4 decimals within 8.5e-4.
inline constexpr double kAccessBinsSumTolerance = 1e-3;

// INVALID_ARGUMENT naming the field and the reason, e.g.
// "tables[3].dim: must be a multiple of 4, got 6"; RESOURCE_EXHAUSTED for counts over `limits`.
// Checks: rows >= 1, dim > 0 and a multiple of 4, pooling factor finite and >= 0, access bins
// empty or 17 values in [0,1] summing to 1 (all 0 only for a table with pooling factor 0, which
// no batch reads), max_planning_time_ms in [0, kMaxTaskPlanningTimeMs], unique non-empty names (at
// most max_name_bytes), devices >= 1, capacities > 0, pinned devices in range, colocation groups
// naming known tables at most once, batch size >= 1.
absl::Status ValidateTask(const Task& task, const TaskLimits& limits = {});

// INVALID_ARGUMENT naming the offending table, shard or device when the plan does not cover
// every table of the task exactly once in full (its row groups tile the table's rows x columns;
// replicas of a group only where the type's rules allow them, on distinct devices), a shard is
// out of bounds or on a device that does not exist, a route or row order breaks its type's rules
// (planner/domain/layout_rules.h, one rule row per sharding type), or a constraint (allowed
// sharding types, pinning, colocation) is broken. FAILED_PRECONDITION naming the device when a
// well-formed plan needs more memory on a device than it has (every replica counts:
// plan_memory.h).
absl::Status ValidatePlan(const Task& task, const Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_VALIDATION_H_
