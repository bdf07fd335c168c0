#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_

// TorchRec's EmbeddingEnumerator for the sharding types shardplan plans represent: TABLE_WISE,
// equal-width COLUMN_WISE, ROW_WISE, TABLE_ROW_WISE and DATA_PARALLEL (no TWCW or GRID, one
// compute kernel per type: "fused", "dense" for DP).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/torchrec/sharding_option.h"
#include "planner/domain/task.h"
#include "planner/estimators/torchrec_shard_perf.h"

namespace shardplan::torchrec {

// The column-wise shard counts tried for a table of `dim` columns: 2, 4, 8, ... while the
// block width dim / count is a whole multiple of 4 and at least `min_partition`.
// TorchRec itself tries one block width, the smallest valid one >= min_partition; halvings let
// the proposers trade perf for memory, and are what column_splits can describe.
std::vector<int32_t> ColumnWiseShardCounts(int32_t dim, int32_t min_partition);

// Every table's options among `types` that the table allows, with per-shard perf (TorchRec's
// estimator on the task's batch and topology: EstimateShardPerf for TW/CW, the row-level
// compute and its collectives for the others) and storage (ShardMemoryBytes):
// - TABLE_WISE, one shard;
// - COLUMN_WISE with one shard when the table allows COLUMN_WISE but not TABLE_WISE (TorchRec's
//   CW of a dim no block divides);
// - COLUMN_WISE with ColumnWiseShardCounts shards;
// - ROW_WISE over every device in TorchRec's blocks (EvenRowBlocks; MemoryProportionalRowBlocks
//   when device capacities differ);
// - TABLE_ROW_WISE over one host's local_world_size devices (EvenRowBlocks);
// - DATA_PARALLEL, a replica per device.
// Only TABLE_WISE (or one-shard COLUMN_WISE) for a table of a unit (colocation group or pin)
// that must stay on one device. Row-level options whose blocks would leave a shard empty are not
// offered. FAILED_PRECONDITION naming tables[i].allowed_sharding_types for a table left without
// options; INVALID_ARGUMENT as PlacementUnits for bad colocation groups.
absl::StatusOr<SearchSpace> Enumerate(const Task& task, int32_t min_partition,
                                      const std::vector<ShardingType>& types,
                                      const AnalyticParams& params = {});

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_
