#ifndef SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

struct TorchRecOptions {
  // The module that owns the tables in the model, e.g. "sparse_arch.embedding_bag_collection".
  std::string module_path = "embedding_bag_collection";
  // Devices per host: the cuda index of rank R is R % local_world_size. 0: every device on one
  // host (the plan's device count).
  int local_world_size = 0;
};

// The plan in the JSON shape of TorchRec's ShardingPlan._serialize (papers/notes/
// reference-implementations.md 4.11):
//   {"plan": {module_path: {table: {"sharding_type": "table_wise" | "column_wise" | ...,
//     "compute_kernel": "fused", "ranks": [...],
//     "shards": [{"shard_offsets": [r0, c0], "shard_sizes": [r, c],
//                 "placement": "rank:R/cuda:L"}]}}}}
// Shards are ordered by offset and ranks[i] is the rank of shards[i] (TorchRec's column_wise
// convention; a rank may repeat). INVALID_ARGUMENT for a table without shards.
absl::StatusOr<std::string> FormatTorchRecPlan(const shardplan::v1::Plan& plan,
                                               const TorchRecOptions& options);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_
