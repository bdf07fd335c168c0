#include "planner/algorithms/neuroshard/table_layouts.h"

#include <utility>

#include "planner/domain/memory.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/search/row_blocks.h"

namespace shardplan::neuroshard {
namespace {

TableSharding Layout(const Table& table, ShardingType type) {
  TableSharding sharding;
  sharding.table = table.name;
  sharding.sharding_type = type;
  return sharding;
}

void AddRowShards(const Table& table, const std::vector<RowBlock>& blocks,
                  const std::vector<int>& devices, TableSharding& sharding) {
  for (size_t s = 0; s < blocks.size(); ++s) {
    if (blocks[s].count <= 0) continue;
    sharding.shards.push_back(Shard{.device = devices[s],
                                    .row_offset = blocks[s].offset,
                                    .row_count = blocks[s].count,
                                    .column_offset = 0,
                                    .column_count = table.dim});
  }
}

}  // namespace

bool MayUse(const Table& table, const CostModel& model, ShardingType type) {
  return table.Allows(type) && model.CostsShardingType(type);
}

TableSharding TableWiseLayout(const Table& table, int device) {
  TableSharding sharding = Layout(table, ShardingType::kTableWise);
  sharding.shards.push_back(Shard{.device = device,
                                  .row_offset = 0,
                                  .row_count = table.rows,
                                  .column_offset = 0,
                                  .column_count = table.dim});
  return sharding;
}

TableSharding RowWiseLayout(const Table& table, const Topology& topology) {
  TableSharding sharding = Layout(table, ShardingType::kRowWise);
  std::vector<int> devices(static_cast<size_t>(topology.num_devices()));
  for (int d = 0; d < topology.num_devices(); ++d) devices[d] = d;
  AddRowShards(table, RowWiseBlocks(table.rows, topology.memory_bytes), devices, sharding);
  return sharding;
}

TableSharding TableRowWiseLayout(const Table& table, const Topology& topology, int host) {
  TableSharding sharding = Layout(table, ShardingType::kTableRowWise);
  std::vector<int> devices;
  for (int d = 0; d < topology.num_devices(); ++d) {
    if (topology.host_of(d) == host) devices.push_back(d);
  }
  AddRowShards(table, EvenRowBlocks(table.rows, static_cast<int>(devices.size())), devices,
               sharding);
  return sharding;
}

TableSharding DataParallelLayout(const Table& table, const Topology& topology) {
  TableSharding sharding = Layout(table, ShardingType::kDataParallel);
  for (int d = 0; d < topology.num_devices(); ++d) {
    sharding.shards.push_back(Shard{.device = d,
                                    .row_offset = 0,
                                    .row_count = table.rows,
                                    .column_offset = 0,
                                    .column_count = table.dim});
  }
  return sharding;
}

TableSharding RowLevelLayout(ShardingType type, const Table& table, const Topology& topology,
                             int host) {
  switch (type) {
    case ShardingType::kRowWise:
      return RowWiseLayout(table, topology);
    case ShardingType::kTableRowWise:
      return TableRowWiseLayout(table, topology, host);
    default:
      return DataParallelLayout(table, topology);
  }
}

void AddLayoutBytes(const Table& table, const TableSharding& sharding, const MemoryOptions& memory,
                    int sign, std::vector<int64_t>& bytes) {
  for (const Shard& shard : sharding.shards) {
    const int64_t shard_bytes =
        ShardMemoryBytes(table, shard.row_count, shard.column_count, memory);
    bytes[shard.device] =
        sign > 0 ? AddBytes(bytes[shard.device], shard_bytes) : bytes[shard.device] - shard_bytes;
  }
}

LayoutCoster::LayoutCoster(const Task& task, const CostModel& model) : task_(task), model_(model) {}

PlacementCost LayoutCoster::Cost(const std::vector<TableSharding>& tables) {
  // The queries DescribePlacement makes of the same plan, in the same order.
  const size_t num_devices = static_cast<size_t>(task_.topology.num_devices());
  queries_.shards_per_device.resize(num_devices);
  for (std::vector<ShardView>& shards : queries_.shards_per_device) shards.clear();
  queries_.dim_sums.assign(num_devices, 0);
  queries_.collectives.clear();
  for (size_t t = 0; t < tables.size(); ++t) {
    const Table& table = task_.tables[t];
    const TableSharding& sharding = tables[t];
    const bool column_level = IsColumnLevel(sharding.sharding_type);
    const int32_t group_size = static_cast<int32_t>(sharding.shards.size());
    for (const Shard& shard : sharding.shards) {
      queries_.shards_per_device[shard.device].push_back(ViewOfShard(table, sharding, shard));
      if (column_level) {
        queries_.dim_sums[shard.device] += AllToAllColumns(table, shard.column_count);
      }
    }
    shards_costed_ += group_size;
    if (!column_level) {
      for (CollectiveDemand& demand : TaskCollectives(task_, table, sharding)) {
        queries_.collectives.push_back(std::move(demand));
      }
    }
  }
  ++plans_costed_;
  return CostOfDescribedPlacement(model_, CostContext::For(task_), queries_);
}

}  // namespace shardplan::neuroshard
