#ifndef SHARDPLAN_PLANNER_DOMAIN_TASK_H_
#define SHARDPLAN_PLANNER_DOMAIN_TASK_H_

#include <cstdint>
#include <string>
#include <vector>

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

// A sharding problem: tables, devices and constraints (docs/design.md section 2).
struct Task {
  std::vector<Table> tables;
  Topology topology;
  int64_t batch_size = kDefaultBatchSize;  // global batch
  std::vector<std::vector<std::string>> colocate;  // groups of table names kept together
  MemoryOptions memory;
  int64_t max_planning_time_ms = 0;  // 0: no limit of its own
};

// The task with its tables sorted by name and colocation groups sorted, so that planning and
// cache keys do not depend on the order a client listed them in.
Task CanonicalTask(Task task);
// Whether `task` is in that order already.
bool IsCanonical(const Task& task);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TASK_H_
