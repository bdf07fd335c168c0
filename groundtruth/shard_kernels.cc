#include "groundtruth/shard_kernels.h"

#include <map>
#include <utility>

namespace shardplan {
namespace {

Table ColumnShard(const ShardView& shard) {
  Table table = *shard.table;
  table.rows = shard.rows;
  table.dim = shard.columns;
  return table;
}

// The block of rows a row-level shard holds, with its share of the table's lookups.
Table RowBlock(const ShardView& shard) {
  Table table = ColumnShard(shard);
  const double share = shard.table->rows > 0 ? static_cast<double>(shard.rows) /
                                                   static_cast<double>(shard.table->rows)
                                             : 0.0;
  table.pooling_factor = shard.table->pooling_factor * share;
  return table;
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
    switch (shard.sharding) {
      case ShardingType::kTableWise:
      case ShardingType::kColumnWise:
        call.batch_size = batch_size;
        call.tables.push_back(ColumnShard(shard));
        break;
      case ShardingType::kRowWise:
      case ShardingType::kTableRowWise:
        call.batch_size = batch_size;
        call.tables.push_back(RowBlock(shard));
        break;
      case ShardingType::kDataParallel:
        call.batch_size = ReplicaBatch(batch_size, shard.group_size);
        call.tables.push_back(ColumnShard(shard));
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
