#ifndef SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_
#define SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_

#include <cstdint>
#include <string>

#include "planner/domain/task.h"

namespace shardplan {

// Bytes a shard of `rows` x `columns` of `table` occupies on its device: the weights
// (rows x columns x element bytes, as the reference counts them) scaled by
// 1 + optimizer_state_multiplier + io_buffer_multiplier, rounded up.
int64_t ShardMemoryBytes(const Table& table, int64_t rows, int32_t columns,
                         const MemoryOptions& options);

// The whole table on one device.
int64_t TableMemoryBytes(const Table& table, const MemoryOptions& options);

// a + b for byte counts (>= 0), saturating at the int64 maximum instead of wrapping: an absurd
// total must still read as "does not fit".
int64_t AddBytes(int64_t a, int64_t b);

// "12.34 GiB", for messages.
std::string FormatGiB(int64_t bytes);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_
