#ifndef SHARDPLAN_PLANNER_MEMORY_H_
#define SHARDPLAN_PLANNER_MEMORY_H_

#include <cstdint>

#include "planner/task.h"

namespace shardplan {

// Bytes a shard of `rows` x `columns` of `table` occupies on its device: the weights
// (rows x columns x element bytes, as the reference counts them) scaled by
// 1 + optimizer_state_multiplier + io_buffer_multiplier, rounded up.
int64_t ShardMemoryBytes(const Table& table, int64_t rows, int32_t columns,
                         const MemoryOptions& options);

// The whole table on one device.
int64_t TableMemoryBytes(const Table& table, const MemoryOptions& options);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_MEMORY_H_
