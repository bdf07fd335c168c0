#ifndef SHARDPLAN_PLANNER_FRAMEWORK_OVERSIZED_TABLES_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_OVERSIZED_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/task.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

// The narrowest column shard any planner here makes (TorchRec's min_partition floor and
// NeuroShard's halves, both multiples of 4 columns): a column split holds a table only when a
// slice this wide fits a device.
inline constexpr int32_t kNarrowestColumnShard = 4;

// A table larger than every device of its task: only shards that split it can hold it.
struct OversizedTable {
  size_t index = 0;   // in task.tables
  int64_t bytes = 0;  // the whole table on one device (TableMemoryBytes)
  int largest_device = 0;
  int64_t largest_device_bytes = 0;
  // The sharding types whose shards can hold it on the task's devices, whatever the table
  // allows, in ShardingType order: ROW_WISE (its rows over every device), TABLE_ROW_WISE (over
  // the devices of one host) and COLUMN_WISE where a kNarrowestColumnShard slice fits a device.
  std::vector<ShardingType> holders;
};

// The tables of `task` whose whole bytes exceed its largest device, in task order.
std::vector<OversizedTable> OversizedTables(const Task& task);

// The holders of `table` that its allowed_sharding_types allow, `algorithm` places and `model`
// costs (a null model: any).
std::vector<ShardingType> UsableHolders(const OversizedTable& table, const Task& task,
                                        const AlgorithmInfo& algorithm, const CostModel* model);

// OK when `algorithm` under `model` (null: whatever model) can hold every table of `task`
// larger than any device: each has a usable holder. Else FAILED_PRECONDITION naming the first
// table that has none, its size and the largest device, the types that would hold it and why
// each is out ("task is infeasible for neuroshard: table "huge" needs 30.00 GiB but the largest
// device (device 0) holds 16.00 GiB; only ROW_WISE or TABLE_ROW_WISE shards would hold it, and
// neuroshard places neither (it places TABLE_WISE, COLUMN_WISE)"; "cost model m@1 cannot cost
// ROW_WISE"; "tables[3].allowed_sharding_types excludes TABLE_ROW_WISE").
absl::Status CheckOversizedTables(const AlgorithmInfo& algorithm, const CostModel* model,
                                  const Task& task);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_OVERSIZED_TABLES_H_
