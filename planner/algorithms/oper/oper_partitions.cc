#include "planner/algorithms/oper/oper_partitions.h"

#include <algorithm>
#include <cmath>

#include "planner/domain/memory.h"

namespace shardplan::oper {
namespace {

// The largest end in (begin, rows] whose ranks [begin, end) serve at most `bound` lookups (at
// least begin + 1: a row hotter than the bound is alone). Cumulative shares are monotone, so a
// binary search over them finds it in O(log rows) curve reads.
int64_t AccessEnd(const PartitionTable& table, int64_t begin, double bound) {
  const RankFrequencyCurve& curve = *table.curve;
  const double base = curve.CumulativeShare(begin);
  const auto lookups = [&](int64_t end) {
    return table.lookups_per_device * (curve.CumulativeShare(end) - base);
  };
  int64_t low = begin + 1;  // always allowed
  int64_t high = curve.rows();
  if (lookups(high) <= bound) return high;
  while (high - low > 1) {  // invariant: low allowed, high not
    const int64_t mid = low + (high - low) / 2;
    if (lookups(mid) <= bound) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low;
}

}  // namespace

const char* PartitionBoundName(PartitionBound bound) {
  return bound == PartitionBound::kAccess ? "access" : "memory";
}

std::vector<Partition> PartitionTables(const std::vector<PartitionTable>& tables,
                                       const MemoryOptions& memory, double threshold) {
  double total_lookups = 0.0;
  double total_bytes = 0.0;
  std::vector<double> row_bytes(tables.size());  // memory per row, as the bound reads it
  for (size_t t = 0; t < tables.size(); ++t) {
    const Table& table = *tables[t].table;
    const int64_t bytes = ShardMemoryBytes(table, table.rows, table.dim, memory);
    row_bytes[t] =
        table.rows > 0 ? static_cast<double>(bytes) / static_cast<double>(table.rows) : 0.0;
    total_lookups += tables[t].lookups_per_device;
    total_bytes += static_cast<double>(bytes);
  }
  const double access_bound = threshold * total_lookups;
  const double memory_bound = threshold * total_bytes;

  std::vector<Partition> partitions;
  for (size_t t = 0; t < tables.size(); ++t) {
    const PartitionTable& input = tables[t];
    const Table& table = *input.table;
    const int64_t rows_by_memory =
        row_bytes[t] > 0.0
            ? std::max<int64_t>(1, static_cast<int64_t>(std::floor(memory_bound / row_bytes[t])))
            : table.rows;
    const int64_t fetch_bytes = int64_t{table.dim} * ElementBytes(table.element_type);
    for (int64_t begin = 0; begin < table.rows;) {
      const int64_t memory_end = std::min(table.rows, begin + rows_by_memory);
      const int64_t access_end = AccessEnd(input, begin, access_bound);
      const int64_t end = std::min(memory_end, access_end);
      Partition partition{.table = static_cast<int32_t>(t),
                          .rank_begin = begin,
                          .rank_end = end,
                          .lookups = input.lookups_per_device * input.curve->Share(begin, end),
                          .bytes = ShardMemoryBytes(table, end - begin, table.dim, memory),
                          .fetch_bytes = fetch_bytes,
                          .bound = PartitionBound::kMemory};
      if (end < table.rows) {
        // Closed by the bound the next row would break; both at once: access (the hot rule).
        partition.bound =
            access_end <= memory_end ? PartitionBound::kAccess : PartitionBound::kMemory;
      } else {
        const double access_fill = access_bound > 0.0 ? partition.lookups / access_bound : 0.0;
        const double memory_fill =
            static_cast<double>(end - begin) / static_cast<double>(rows_by_memory);
        partition.bound =
            access_fill >= memory_fill ? PartitionBound::kAccess : PartitionBound::kMemory;
      }
      partitions.push_back(partition);
      begin = end;
    }
  }
  return partitions;
}

}  // namespace shardplan::oper
