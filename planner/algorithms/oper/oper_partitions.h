#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PARTITIONS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PARTITIONS_H_

// OPER's access- and memory-aware partitions (section 4.1; docs/oper.md): each table's rows in
// frequency-rank order (hottest first) cut into consecutive rank ranges, each closed when one
// more row would take it past `threshold` of all tables' lookups (access-bounded) or of all
// tables' memory (memory-bounded) (C2). A partition never spans two tables (C3).

#include <cstdint>
#include <vector>

#include "planner/domain/rank_frequency.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"

namespace shardplan::oper {

enum class PartitionBound { kAccess, kMemory };

// "access", "memory", for reports and messages.
const char* PartitionBoundName(PartitionBound bound);

// One table as the partitioning reads it.
struct PartitionTable {
  const Table* table = nullptr;
  const RankFrequencyCurve* curve = nullptr;  // rows() == table->rows
  // A_k summed over the table: the lookups of its rows each device makes per iteration (pooling
  // factor x local batch; the curve spreads them over the ranks).
  double lookups_per_device = 0.0;
};

struct Partition {
  int32_t table = 0;  // index into the PartitionTable list
  int64_t rank_begin = 0;
  int64_t rank_end = 0;
  double lookups = 0.0;     // per device per iteration: the rows' A_k summed
  int64_t bytes = 0;        // one copy's memory (ShardMemoryBytes: weights and optimizer state)
  int64_t fetch_bytes = 0;  // bytes one lookup of one of its rows fetches (dim x element bytes)
  PartitionBound bound = PartitionBound::kMemory;

  int64_t rows() const { return rank_end - rank_begin; }
};

// The partitions of every table, table by table, each in rank order. `threshold` in (0, 1].
// A single row past the access bound is a partition of its own (access-bounded); a table's last
// partition, closed by the table's end, takes the bound it filled the larger share of (C4).
std::vector<Partition> PartitionTables(const std::vector<PartitionTable>& tables,
                                       const MemoryOptions& memory, double threshold);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PARTITIONS_H_
