#include "groundtruth/shard_kernels.h"

#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "planner/domain/table_access.h"

namespace shardplan {
namespace {

// A shard as a table of its own: its geometry, and the access classes of its rows (a profiled
// table's curve over the whole table, as its rows are not known to be ranks).
Table ColumnShard(const ShardView& shard, int64_t batch_size) {
  Table table = *shard.table;
  table.access_bins = AccessBinsOfRanks(*shard.table, 0, shard.table->rows, batch_size);
  table.access_profile = {};
  table.rows = shard.rows;
  table.dim = shard.columns;
  return table;
}

// The block of rows a row-level shard holds, with its share of the table's lookups: rows in
// proportion (ids are hashed), or, when the table's ids are its ranks, the share and access
// classes its rank range has on the table's curve.
Table RowBlock(const ShardView& shard, int64_t batch_size) {
  Table table = ColumnShard(shard, batch_size);
  const std::optional<double> ranked =
      RankOrderedShare(*shard.table, shard.row_offset, shard.rows);
  if (ranked) {
    table.access_bins = AccessBinsOfRanks(*shard.table, shard.row_offset,
                                    shard.row_offset + shard.rows, batch_size);
  }
  const double share = ranked                 ? *ranked
                       : shard.table->rows > 0 ? static_cast<double>(shard.rows) /
                                                     static_cast<double>(shard.table->rows)
                                               : 0.0;
  table.pooling_factor = shard.table->pooling_factor * share;
  return table;
}

// A routed layout's shard: its rows with their share of the lookups and, when they are ranks,
// their access classes, at the batch of the requesters routed to it (the samples whose lookups
// of its rows it serves, rounded to the nearest sample).
std::pair<Table, int64_t> RoutedBlock(const ShardView& shard, int64_t batch_size) {
  Table table = ColumnShard(shard, batch_size);
  if (shard.routed.ranked) {
    table.access_bins = AccessBinsOfRanks(*shard.table, shard.routed.ranks_begin,
                                    shard.routed.ranks_end, batch_size);
  }
  table.pooling_factor = shard.table->pooling_factor * shard.routed.rows_share;
  const int64_t batch = static_cast<int64_t>(
      std::llround(static_cast<double>(batch_size) * shard.routed.requester_share()));
  return {std::move(table), batch};
}

// batch / replicas, rounded to the nearest sample.
int64_t ReplicaBatch(int64_t batch_size, int32_t replicas) {
  if (replicas <= 1) return batch_size;
  return (batch_size + replicas / 2) / replicas;
}

}  // namespace

std::vector<KernelCall> DeviceKernelCalls(std::span<const ShardView> shards, int64_t batch_size) {
  std::map<int64_t, KernelCall> calls_by_key;  // in key order: the order the calls run in
  for (const ShardView& shard : shards) {
    const int64_t key = KernelCallKey(shard);
    if (key < 0) continue;  // an empty block serves nothing
    KernelCall& call = calls_by_key[key];
    if (shard.routed.routed()) {
      auto [table, batch] = RoutedBlock(shard, batch_size);
      call.batch_size = batch;
      call.tables.push_back(std::move(table));
      continue;
    }
    switch (shard.sharding) {
      case ShardingType::kTableWise:
      case ShardingType::kColumnWise:
        call.batch_size = batch_size;
        call.tables.push_back(ColumnShard(shard, batch_size));
        break;
      case ShardingType::kRowWise:
      case ShardingType::kTableRowWise:
        call.batch_size = batch_size;
        call.tables.push_back(RowBlock(shard, batch_size));
        break;
      case ShardingType::kDataParallel:
        call.batch_size = ReplicaBatch(batch_size, shard.group_size);
        call.tables.push_back(ColumnShard(shard, batch_size));
        break;
    }
  }
  std::vector<KernelCall> calls;
  // A device without shards is measured as an empty call, as before row-level shards existed.
  if (shards.empty()) calls.push_back(KernelCall{.batch_size = batch_size});
  for (auto& [key, call] : calls_by_key) calls.push_back(std::move(call));
  return calls;
}

}  // namespace shardplan
