#ifndef SHARDPLAN_PLANNER_DOMAIN_TASK_H_
#define SHARDPLAN_PLANNER_DOMAIN_TASK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan {

// The reference collects and plans at batch 65536 (dlrm_datasets' fbgemm_t856_bs65536).
inline constexpr int64_t kDefaultBatchSize = 65536;

// The optimizer whose state sits beside the weights (TorchRec's storage multipliers: SGD 0,
// Adam 2, row-wise Adagrad one value per row, any other 1). kUnspecified: none.
enum class Optimizer { kUnspecified, kSgd, kAdam, kRowwiseAdagrad, kOther };

// Memory counted per shard: weights x (1 + optimizer_state_multiplier + io_buffer_multiplier)
// plus the optimizer's state. All 0 by default, as in the reference (weights only).
// storage_reservation is applied where a task is decoded (ReserveStorage): the topology's
// memory_bytes are then what plans may use.
struct MemoryOptions {
  double optimizer_state_multiplier = 0.0;
  double io_buffer_multiplier = 0.0;
  double storage_reservation = 0.0;  // fraction of every device held back, in [0, 1)
  Optimizer optimizer = Optimizer::kUnspecified;
};

// What a step of the planned job does. kTraining: forward and backward (gradients, their
// collectives, optimizer state). kInference: the forward pass only: no gradients, no
// all-reduce, no backward all-to-all, no optimizer state.
enum class Objective { kTraining, kInference };
const char* ObjectiveName(Objective objective);

// Extra memory a plan may spend on replicated rows, per device, beyond what the row-wise plan of
// the same tables needs (FlexShard's marginal memory; 0 = memory-neutral, the default). At most
// one is set: an amount, or a fraction of each device's capacity.
struct ReplicationBudget {
  std::optional<int64_t> extra_bytes_per_device;  // may be negative (a saving required)
  std::optional<double> capacity_fraction;        // in [0, 1]

  // The budget on a device of `capacity_bytes`.
  double BytesOn(int64_t capacity_bytes) const;
};

// A sharding problem: tables, devices and constraints (docs/design.md section 2).
struct Task {
  std::vector<Table> tables;
  Topology topology;
  // The global batch: the samples of one step over all devices together. Each device's local
  // batch (FlexShard's B) is batch_size / num_devices (LocalBatchSize).
  int64_t batch_size = kDefaultBatchSize;
  std::vector<std::vector<std::string>> colocate;  // groups of table names kept together
  MemoryOptions memory;
  int64_t max_planning_time_ms = 0;  // 0: no limit of its own
  Objective objective = Objective::kTraining;
  ReplicationBudget replication_budget;
};

// The samples one device processes per step: the global batch over the devices (at least 1).
int64_t LocalBatchSize(const Task& task);

// OK, or INVALID_ARGUMENT naming the field ("replication_budget.capacity_fraction: ...").
absl::Status ValidateReplicationBudget(const ReplicationBudget& budget);

// The task with its tables sorted by name and colocation groups sorted, so that planning and
// cache keys do not depend on the order a client listed them in.
Task CanonicalTask(Task task);
// Whether `task` is in that order already.
bool IsCanonical(const Task& task);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TASK_H_
