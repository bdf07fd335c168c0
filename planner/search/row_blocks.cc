#include "planner/search/row_blocks.h"

#include <algorithm>

namespace shardplan {
namespace {

std::vector<RowBlock> WithOffsets(std::vector<int64_t> counts) {
  std::vector<RowBlock> blocks;
  blocks.reserve(counts.size());
  int64_t offset = 0;
  for (int64_t count : counts) {
    blocks.push_back(RowBlock{offset, count});
    offset += count;
  }
  return blocks;
}

}  // namespace

std::vector<RowBlock> EvenRowBlocks(int64_t rows, int shards) {
  if (shards <= 0) return {};
  const int64_t block = (rows + shards - 1) / shards;
  std::vector<int64_t> counts(static_cast<size_t>(shards), 0);
  if (block == 0) return WithOffsets(std::move(counts));
  const int64_t last = rows / block;  // TorchRec's last_rank
  for (int r = 0; r < shards; ++r) {
    counts[r] = r < last ? block : r == last ? rows - block * last : 0;
  }
  return WithOffsets(std::move(counts));
}

std::vector<RowBlock> MemoryProportionalRowBlocks(int64_t rows,
                                                  std::span<const int64_t> device_memory) {
  if (device_memory.empty()) return {};
  double total = 0.0;
  for (int64_t bytes : device_memory) total += static_cast<double>(bytes);
  std::vector<int64_t> counts(device_memory.size(), 0);
  int64_t assigned = 0;
  for (size_t r = 0; r + 1 < device_memory.size(); ++r) {
    // Python's int(): truncation of the float product.
    counts[r] = static_cast<int64_t>(static_cast<double>(rows) *
                                     (static_cast<double>(device_memory[r]) / total));
    assigned += counts[r];
  }
  counts.back() = rows - assigned;
  return WithOffsets(std::move(counts));
}

std::vector<RowBlock> RowWiseBlocks(int64_t rows, std::span<const int64_t> device_memory) {
  const bool uniform =
      std::all_of(device_memory.begin(), device_memory.end(),
                  [&](int64_t bytes) { return bytes == device_memory.front(); });
  return uniform ? EvenRowBlocks(rows, static_cast<int>(device_memory.size()))
                 : MemoryProportionalRowBlocks(rows, device_memory);
}

}  // namespace shardplan
