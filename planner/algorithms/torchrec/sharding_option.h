#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_SHARDING_OPTION_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_SHARDING_OPTION_H_

// TorchRec's ShardingOption (planner/types.py), reduced to what shardplan plans carry: one way
// to cut one table, with every shard's estimated perf and storage.

#include <cstdint>
#include <vector>

#include "planner/domain/table.h"
#include "planner/estimators/torchrec_shard_perf.h"
#include "planner/search/placement_units.h"

namespace shardplan::torchrec {

inline constexpr char kAlgorithmName[] = "torchrec";

// Rows [row_offset, row_offset + rows), columns [column_offset, column_offset + columns).
struct ShardOption {
  int64_t row_offset = 0;
  int64_t rows = 0;
  int32_t column_offset = 0;
  int32_t columns = 0;
  ShardPerf perf;
  int64_t bytes = 0;  // ShardMemoryBytes: shardplan's one memory model
};

// TorchRec's partition_by: where the partitioner may put an option's shards.
enum class PartitionBy {
  kDevice,   // TW, CW: each shard on the least loaded device it fits
  kHost,     // TWRW: shard i on the i-th device of one host
  kUniform,  // RW, DP: shard i on device i
};

struct ShardingOption {
  int table = 0;  // task.tables index
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<ShardOption> shards;  // ascending column, then row offsets

  PartitionBy partition_by() const;

  double PerfSum() const;
  double PerfMax() const;
  int64_t BytesSum() const;
  int64_t BytesMax() const;
};

// The enumerator's output: options_of_table[t] for task.tables[t] in enumeration order (TW,
// CW by ascending shard count, RW, TWRW, DP), and the units the partitioner must keep whole.
struct SearchSpace {
  std::vector<std::vector<ShardingOption>> options_of_table;
  std::vector<PlacementUnit> units;  // PlacementUnits(task)
};

// One option per table: proposal[t] indexes options_of_table[t]. Also the proposal-cache key,
// since sorted global option ids would order them by table the same way.
using Proposal = std::vector<int>;

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_SHARDING_OPTION_H_
