#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_

// TorchRec's EmbeddingEnumerator restricted to what shardplan plans represent: TABLE_WISE and
// equal-width COLUMN_WISE (no RW, TWRW, DP, and one compute kernel, "fused").

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

// Every table's options with per-shard perf (EstimateShardPerf on the task's batch and
// topology) and storage (ShardMemoryBytes):
// - TABLE_WISE, one shard, when the table allows it;
// - COLUMN_WISE with one shard when it allows COLUMN_WISE but not TABLE_WISE (TorchRec's CW of
//   a dim no block divides);
// - COLUMN_WISE with ColumnWiseShardCounts shards, unless the table belongs to a unit
//   (colocation group or pin) that must stay on one device: cutting it would gain nothing.
// FAILED_PRECONDITION naming tables[i].allowed_sharding_types for a table that allows neither
// TABLE_WISE nor COLUMN_WISE; INVALID_ARGUMENT as PlacementUnits for bad colocation groups.
absl::StatusOr<SearchSpace> Enumerate(const Task& task, int32_t min_partition,
                                      const AnalyticParams& params = {});

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_ENUMERATOR_H_
