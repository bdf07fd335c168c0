#ifndef SHARDPLAN_PLANNER_SEARCH_ROW_BLOCKS_H_
#define SHARDPLAN_PLANNER_SEARCH_ROW_BLOCKS_H_

// TorchRec's row blocks (sharding_plan.py, calculate_shard_sizes_and_offsets) for ROW_WISE and
// TABLE_ROW_WISE shards.

#include <cstdint>
#include <span>
#include <vector>

namespace shardplan {

// One shard's rows: [offset, offset + count).
struct RowBlock {
  int64_t offset = 0;
  int64_t count = 0;
};

// _calculate_rw_shard_sizes_and_offsets: blocks of ceil(rows / shards) rows, the last non-empty
// one shorter and any after it empty (10 rows over 4 shards: 3, 3, 3, 1; 5 over 4: 2, 2, 1, 0).
std::vector<RowBlock> EvenRowBlocks(int64_t rows, int shards);

// _calculate_uneven_rw_shard_sizes_and_offsets: shard r gets int(rows * memory[r] / total)
// rows, the last one what is left (TorchRec splits by memory when device capacities differ).
std::vector<RowBlock> MemoryProportionalRowBlocks(int64_t rows,
                                                  std::span<const int64_t> device_memory);

// TorchRec's ROW_WISE blocks over devices of `device_memory` bytes (one block per device, in
// order): EvenRowBlocks when every capacity is the same, else MemoryProportionalRowBlocks.
std::vector<RowBlock> RowWiseBlocks(int64_t rows, std::span<const int64_t> device_memory);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_ROW_BLOCKS_H_
