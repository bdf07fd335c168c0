#ifndef SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

struct TorchRecOptions {
  // The module that owns the tables in the model, e.g. "sparse_arch.embedding_bag_collection".
  std::string module_path = "embedding_bag_collection";
  // Devices per host: the cuda index of rank R is R % local_world_size. 0: the plan's
  // local_world_size, else every device on one host (the plan's device count).
  int local_world_size = 0;
  // SEQUENCE tables (Table.pooling): TorchRec serves them from an EmbeddingCollection, not the
  // EmbeddingBagCollection, so they go under this module instead of module_path.
  std::set<std::string> sequence_tables;
  std::string sequence_module_path = "embedding_collection";
};

// The plan in the JSON shape of TorchRec's ShardingPlan._serialize (docs/design.md section 7.4):
//   {"plan": {module_path: {table: {"sharding_type": "table_wise" | "column_wise" | "row_wise" |
//     "table_row_wise" | "data_parallel", "compute_kernel": "fused", "ranks": [...],
//     "shards": [{"shard_offsets": [r0, c0], "shard_sizes": [r, c],
//                 "placement": "rank:R/cuda:L"}]}}}}
// Shards are ordered by offset (row_wise and table_row_wise: by row, each block as planned, an
// uneven last one included) and ranks[i] is the rank of shards[i] (a rank may repeat). A
// data_parallel table is written as TorchRec's planner writes it: "compute_kernel": "dense",
// "ranks" its replicas' ranks in order, and no "shards". INVALID_ARGUMENT for a table without
// shards, and for a row layout TorchRec cannot run, naming the table and why: replicated row
// groups, a data_parallel table on some ranks only, routes, frequency-rank row order. A sequence
// table goes under options.sequence_module_path; TorchRec's EmbeddingCollection has no
// table_row_wise sharding, so such a table is INVALID_ARGUMENT.
absl::StatusOr<std::string> FormatTorchRecPlan(const shardplan::v1::Plan& plan,
                                               const TorchRecOptions& options);

// Whether `json` has the shape above: {"plan": {module: {table: {"sharding_type": ...}}}}.
bool LooksLikeTorchRecPlan(const nlohmann::json& json);

// The shape of a table: what a data_parallel table's replicas hold.
struct TableShape {
  int64_t rows = 0;
  int32_t columns = 0;
};
using TableShapes = std::map<std::string, TableShape, std::less<>>;  // by table name

// The shapes of a task's tables.
TableShapes TableShapesOf(const shardplan::v1::Task& task);

// The shards of a plan in that shape, as TorchRec's planner or this tool writes it: every table
// of every module (names must be unique across modules), each shard on the device its placement
// names ("rank:R/cuda:L" or "rank:R/cpu": device R). Sharding types table_wise, column_wise,
// row_wise, table_row_wise and data_parallel map to shardplan's; others are INVALID_ARGUMENT
// naming the table. A data_parallel table without "shards" (as TorchRec writes it) is a full
// replica, of the shape `shapes` gives, on each rank of "ranks"; INVALID_ARGUMENT naming the
// table when its shape is unknown. Zero-row row_wise and table_row_wise shards (TorchRec's row
// split leaves trailing ranks empty, e.g. 5 rows over 4 ranks: 2, 2, 1, 0) hold nothing and are
// dropped. Figures are left empty: EvaluatePlan computes them.
absl::StatusOr<shardplan::v1::Plan> ParseTorchRecPlan(const nlohmann::json& json,
                                                      const TableShapes& shapes = {});

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_TORCHREC_FORMAT_H_
