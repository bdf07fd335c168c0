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
  KernelCall column_level{.batch_size = batch_size};
  KernelCall row_wise{.batch_size = batch_size};
  KernelCall table_row_wise{.batch_size = batch_size};
  std::map<int32_t, KernelCall> data_parallel;  // by replica count
  for (const ShardView& shard : shards) {
    switch (shard.sharding) {
      case ShardingType::kTableWise:
      case ShardingType::kColumnWise:
        column_level.tables.push_back(ColumnShard(shard));
        break;
      case ShardingType::kRowWise:
      case ShardingType::kTableRowWise:
        if (shard.rows <= 0) break;  // an empty block serves nothing
        (shard.sharding == ShardingType::kRowWise ? row_wise : table_row_wise)
            .tables.push_back(RowBlock(shard));
        break;
      case ShardingType::kDataParallel: {
        KernelCall& call = data_parallel[shard.group_size];
        call.batch_size = ReplicaBatch(batch_size, shard.group_size);
        call.tables.push_back(ColumnShard(shard));
        break;
      }
    }
  }
  std::vector<KernelCall> calls;
  if (!column_level.tables.empty() || shards.empty()) calls.push_back(std::move(column_level));
  if (!row_wise.tables.empty()) calls.push_back(std::move(row_wise));
  if (!table_row_wise.tables.empty()) calls.push_back(std::move(table_row_wise));
  for (auto& [replicas, call] : data_parallel) calls.push_back(std::move(call));
  return calls;
}

}  // namespace shardplan
