#include "planner/algorithms/torchrec/enumerator.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "planner/domain/memory.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/search/row_blocks.h"

namespace shardplan::torchrec {
namespace {

ShardingOption MakeColumnOption(const Task& task, int t, ShardingType type, int32_t num_shards,
                                const AnalyticParams& params) {
  const Table& table = task.tables[t];
  const int32_t width = table.dim / num_shards;
  ShardingOption option{.table = t, .sharding_type = type, .shards = {}};
  option.shards.reserve(num_shards);
  for (int32_t j = 0; j < num_shards; ++j) {
    option.shards.push_back(
        ShardOption{.row_offset = 0,
                    .rows = table.rows,
                    .column_offset = j * width,
                    .columns = width,
                    .perf = EstimateShardPerf(params, table, width, task.batch_size, task.topology),
                    .bytes = ShardMemoryBytes(table, table.rows, width, task.memory)});
  }
  return option;
}

// A row-level option (RW, TWRW, DP) of `blocks`, shard i on devices[i]: each shard's compute
// for what it serves plus the collectives that charge its device (sharding_semantics.h). The
// perf does not depend on which host a TWRW option lands on, so any host's devices do here.
ShardingOption MakeRowLevelOption(const Task& task, int t, ShardingType type,
                                  const std::vector<RowBlock>& blocks,
                                  const std::vector<int32_t>& devices,
                                  const AnalyticParams& params) {
  const Table& table = task.tables[t];
  TableSharding sharding{.table = table.name, .sharding_type = type, .shards = {}};
  for (size_t i = 0; i < blocks.size(); ++i) {
    sharding.shards.push_back(Shard{.device = devices[i],
                                    .row_offset = blocks[i].offset,
                                    .row_count = blocks[i].count,
                                    .column_offset = 0,
                                    .column_count = table.dim});
  }
  const std::vector<CollectiveDemand> demands =
      TableCollectives(table, sharding, task.topology, task.batch_size);
  ShardingOption option{.table = t, .sharding_type = type, .shards = {}};
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ShardView view{.table = &table,
                         .rows = blocks[i].count,
                         .columns = table.dim,
                         .sharding = type,
                         .group_size = static_cast<int32_t>(blocks.size()),
                         .row_offset = blocks[i].offset};
    ShardPerf perf = EstimateRowLevelCompute(params, view, task.batch_size, task.topology);
    for (const CollectiveDemand& demand : demands) {
      const auto charged = std::count(demand.devices.begin(), demand.devices.end(), devices[i]);
      const double ms = static_cast<double>(charged) * CollectiveMs(params, demand, task.topology);
      (demand.pass == Pass::kForward ? perf.fwd_comms : perf.bwd_comms) += ms;
    }
    option.shards.push_back(
        ShardOption{.row_offset = blocks[i].offset,
                    .rows = blocks[i].count,
                    .column_offset = 0,
                    .columns = table.dim,
                    .perf = perf,
                    .bytes = ShardMemoryBytes(table, blocks[i].count, table.dim, task.memory)});
  }
  return option;
}

bool AllNonEmpty(const std::vector<RowBlock>& blocks) {
  return std::all_of(blocks.begin(), blocks.end(), [](const RowBlock& b) { return b.count > 0; });
}

std::vector<int32_t> FirstDevices(int count) {
  std::vector<int32_t> devices(static_cast<size_t>(count));
  for (int d = 0; d < count; ++d) devices[d] = d;
  return devices;
}

// The row-level options of task.tables[t] among `types`, in TorchRec's enumeration order.
// Shards hold at least one row: an option whose TorchRec blocks leave a rank empty (fewer rows
// than ranks) is not offered, since a plan's shards are non-empty.
void AddRowLevelOptions(const Task& task, int t, const std::vector<ShardingType>& types,
                        const AnalyticParams& params, std::vector<ShardingOption>& options) {
  const Table& table = task.tables[t];
  const Topology& topology = task.topology;
  const int world = topology.num_devices();
  const int local = topology.local_world_size();
  auto enabled = [&](ShardingType type) {
    return table.Allows(type) && std::find(types.begin(), types.end(), type) != types.end();
  };
  if (enabled(ShardingType::kRowWise)) {
    const std::vector<RowBlock> blocks = RowWiseBlocks(table.rows, topology.memory_bytes);
    if (AllNonEmpty(blocks)) {
      options.push_back(MakeRowLevelOption(task, t, ShardingType::kRowWise, blocks,
                                           FirstDevices(world), params));
    }
  }
  if (enabled(ShardingType::kTableRowWise) && local <= world) {
    const std::vector<RowBlock> blocks = EvenRowBlocks(table.rows, local);
    if (AllNonEmpty(blocks)) {
      options.push_back(MakeRowLevelOption(task, t, ShardingType::kTableRowWise, blocks,
                                           FirstDevices(local), params));
    }
  }
  if (enabled(ShardingType::kDataParallel)) {
    const std::vector<RowBlock> replicas(static_cast<size_t>(world), RowBlock{0, table.rows});
    options.push_back(MakeRowLevelOption(task, t, ShardingType::kDataParallel, replicas,
                                         FirstDevices(world), params));
  }
}

std::string TypeNames(const std::vector<ShardingType>& types) {
  std::vector<std::string> names;
  for (ShardingType type : types) names.push_back(ShardingTypeName(type));
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::vector<int32_t> ColumnWiseShardCounts(int32_t dim, int32_t min_partition) {
  std::vector<int32_t> counts;
  for (int32_t count = 2; count <= dim; count *= 2) {
    if (dim % count != 0) break;
    const int32_t width = dim / count;
    if (width % 4 != 0 || width < min_partition) break;
    counts.push_back(count);
  }
  return counts;
}

absl::StatusOr<SearchSpace> Enumerate(const Task& task, int32_t min_partition,
                                      const std::vector<ShardingType>& types,
                                      const AnalyticParams& params) {
  SearchSpace space;
  SHARDPLAN_ASSIGN_OR_RETURN(space.units, PlacementUnits(task));
  space.options_of_table.resize(task.tables.size());
  auto enabled = [&](const Table& table, ShardingType type) {
    return table.Allows(type) && std::find(types.begin(), types.end(), type) != types.end();
  };
  for (const PlacementUnit& unit : space.units) {
    const bool whole_on_one_device = unit.tables.size() > 1 || unit.pinned_device.has_value();
    for (int t : unit.tables) {
      const Table& table = task.tables[t];
      const bool table_wise = enabled(table, ShardingType::kTableWise);
      const bool column_wise = enabled(table, ShardingType::kColumnWise);
      std::vector<ShardingOption>& options = space.options_of_table[t];
      if (table_wise || column_wise) {
        options.push_back(MakeColumnOption(
            task, t, table_wise ? ShardingType::kTableWise : ShardingType::kColumnWise, 1,
            params));
      }
      if (!whole_on_one_device) {
        if (column_wise) {
          for (int32_t count : ColumnWiseShardCounts(table.dim, min_partition)) {
            options.push_back(MakeColumnOption(task, t, ShardingType::kColumnWise, count, params));
          }
        }
        AddRowLevelOptions(task, t, types, params, options);
      }
      if (options.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "task is infeasible for ", kAlgorithmName, ": tables[", t,
            "].allowed_sharding_types of table \"", table.name, "\" allows none of ",
            TypeNames(types), ", the kinds ", kAlgorithmName, " produces here",
            whole_on_one_device ? " (a pinned or colocated table stays whole on one device)"
                                : ""));
      }
    }
  }
  return space;
}

}  // namespace shardplan::torchrec
