#ifndef SHARDPLAN_PLANNER_DOMAIN_PLAN_MEMORY_H_
#define SHARDPLAN_PLANNER_DOMAIN_PLAN_MEMORY_H_

// A plan's memory ledger: every replica of every row group counted where it lives, split into
// weights, the task's multipliers and the optimizer's state, and how much replication adds over
// holding each group once (the replicated-memory multiplier). ValidatePlan's memory check and
// EvaluatePlan's DeviceCost.memory_bytes read it; planners that budget replication (FlexShard's
// tiers) compare against unique_bytes, the plan's bytes with each group held once.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

struct DeviceMemory {
  ShardMemory parts;               // summed over the device's shards
  int64_t bytes = 0;               // parts.total(): DeviceCost.memory_bytes
  int64_t replicated_bytes = 0;    // of `bytes`, shards of groups held on more than one device
  int32_t shards = 0;
  // SEQUENCE tables' all-to-all buffers in one forward pass: the rows the device's shards look
  // up for requesters and the rows its own samples receive, B x L x D x 4 each way for a
  // row-wise table (FlexShard's "2 B L rows"); a lookup a requester serves from its own replica
  // of a replicated group skips the all-to-all and needs none. Not in `bytes`: planners do not
  // budget it yet (docs/architecture.md, "Memory ledger"); DeviceCost.sequence_buffer_bytes.
  int64_t sequence_buffer_bytes = 0;
};

struct TableMemory {
  std::string table;
  int64_t unique_bytes = 0;  // each row group once
  int64_t bytes = 0;         // every replica
};

struct PlanMemory {
  std::vector<DeviceMemory> devices;  // per device of the task
  std::vector<TableMemory> tables;    // per plan table, in plan order
  int64_t unique_bytes = 0;           // the plan with each row group held once
  int64_t bytes = 0;                  // every replica

  // bytes / unique_bytes: 1 without replicas, the device count for a plan of data-parallel
  // tables on every device; 1 for an empty plan.
  double ReplicatedMemoryMultiplier() const;
};

// The ledger of `plan` on `task`. INVALID_ARGUMENT naming the field when a plan table is not a
// task table or a shard's device does not exist (ValidatePlan checks more).
absl::StatusOr<PlanMemory> PlanMemoryOf(const Task& task, const Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_PLAN_MEMORY_H_
