#include "planner/domain/sharding_semantics.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "planner/domain/routed_layout_queries.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/table_access.h"

namespace shardplan {
namespace {

std::vector<int32_t> AllDevices(const Topology& topology) {
  std::vector<int32_t> devices(static_cast<size_t>(topology.num_devices()));
  for (int d = 0; d < topology.num_devices(); ++d) devices[d] = d;
  return devices;
}

CollectiveDemand Demand(Collective collective, Pass pass, const Table& table,
                        const TableSharding& sharding, int32_t columns) {
  CollectiveDemand demand;
  demand.collective = collective;
  demand.pass = pass;
  demand.sharding = sharding.sharding_type;
  demand.table = &table;
  demand.columns = columns;
  return demand;
}

// A sequence table's row shards cannot reduce partial sums: each sends the rows its lookups
// found, whole, to the devices whose samples asked for them (all-to-all, forward), and takes
// their gradients back (all-to-all, backward). TABLE_ROW_WISE keeps the exchange in its host
// and then, as TorchRec's cross-host step, all-to-alls the host's outputs with the same local
// rank of every other host. One demand per shard: shards of a rank-ordered table serve
// unequal shares.
std::vector<CollectiveDemand> SequenceRowCollectives(const Table& table,
                                                     const TableSharding& sharding,
                                                     const Topology& topology,
                                                     int64_t batch_size) {
  std::vector<CollectiveDemand> demands;
  const bool in_host = sharding.sharding_type == ShardingType::kTableRowWise;
  const int32_t host_device = sharding.shards.front().device;
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    for (const Shard& shard : sharding.shards) {
      const int32_t columns = shard.column_count;
      const double lookups = table.pooling_factor * static_cast<double>(batch_size) *
                             LookupShare(ViewOfShard(table, sharding, shard));
      CollectiveDemand demand = Demand(Collective::kAllToAll, pass, table, sharding, columns);
      demand.devices = {shard.device};
      demand.peers = in_host ? topology.DevicesOnHostOf(host_device) : AllDevices(topology);
      demand.crosses_hosts = !in_host && !topology.single_host();
      demand.bytes = lookups * columns * kActivationBytes;
      demands.push_back(std::move(demand));
      if (!in_host || topology.num_hosts() <= 1) continue;
      CollectiveDemand across = Demand(Collective::kAllToAll, pass, table, sharding, columns);
      across.devices = {shard.device};
      across.peers = topology.DevicesWithLocalRankOf(shard.device);
      across.crosses_hosts = true;
      across.bytes = static_cast<double>(batch_size) / topology.num_devices() *
                     topology.num_hosts() * table.pooling_factor * columns * kActivationBytes;
      demands.push_back(std::move(across));
    }
  }
  return demands;
}

}  // namespace

bool IsColumnLevel(ShardingType type) {
  return type == ShardingType::kTableWise || type == ShardingType::kColumnWise;
}

int64_t KernelCallKey(const ShardView& shard) {
  if (shard.routed.routed()) {
    // After every classic call: one per type and requester count; nothing to serve, no call.
    if (shard.routed.requesters == 0 || shard.rows == 0) return -1;
    return (int64_t{1} << 40) + (static_cast<int64_t>(shard.sharding) << 32) +
           shard.routed.requesters;
  }
  switch (shard.sharding) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      return 0;
    case ShardingType::kRowWise:
      return shard.rows > 0 ? 1 : -1;
    case ShardingType::kTableRowWise:
      return shard.rows > 0 ? 2 : -1;
    case ShardingType::kDataParallel:
      return 3 + int64_t{shard.group_size};
  }
  return 0;
}

double LookupShare(const ShardView& shard) {
  if (shard.routed.routed()) return shard.routed.rows_share * shard.routed.requester_share();
  switch (shard.sharding) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      return 1.0;
    case ShardingType::kRowWise:
    case ShardingType::kTableRowWise:
      // A table whose ids are its ranks: the rows serve what the curve gives their ranks.
      if (std::optional<double> share =
              RankOrderedShare(*shard.table, shard.row_offset, shard.rows)) {
        return *share;
      }
      return 1.0 / shard.group_size;
    case ShardingType::kDataParallel:
      return 1.0 / shard.group_size;
  }
  return 1.0;
}

double OutputsPerSample(const Table& table) {
  return table.pooling == Pooling::kSequence ? table.pooling_factor : 1.0;
}

int64_t AllToAllColumns(const Table& table, int32_t columns) {
  return table.pooling == Pooling::kSequence
             ? static_cast<int64_t>(std::llround(columns * table.pooling_factor))
             : columns;
}

double BatchShare(const ShardView& shard, int num_devices) {
  if (shard.routed.routed()) return shard.routed.requester_share();
  return shard.sharding == ShardingType::kDataParallel ? 1.0 / num_devices : 1.0;
}

const char* CollectiveName(Collective collective) {
  switch (collective) {
    case Collective::kAllToAll:
      return "all_to_all";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kAllReduce:
      return "all_reduce";
  }
  return "unknown";
}

std::vector<CollectiveDemand> TableCollectives(const Table& table, const TableSharding& sharding,
                                               const Topology& topology, int64_t batch_size) {
  std::vector<CollectiveDemand> demands;
  if (IsColumnLevel(sharding.sharding_type) || sharding.shards.empty()) return demands;
  std::vector<int32_t> devices;
  for (const Shard& shard : sharding.shards) devices.push_back(shard.device);
  const int32_t columns = sharding.shards.front().column_count;
  // Every row shard holds partial sums of the whole global batch's pooled outputs.
  const double partial_sums_bytes =
      static_cast<double>(batch_size) * static_cast<double>(columns) * kActivationBytes;

  if (table.pooling == Pooling::kSequence &&
      (sharding.sharding_type == ShardingType::kRowWise ||
       sharding.sharding_type == ShardingType::kTableRowWise)) {
    return SequenceRowCollectives(table, sharding, topology, batch_size);
  }
  switch (sharding.sharding_type) {
    case ShardingType::kRowWise: {
      // The partial sums are reduced onto the ranks that own each sample: the whole world.
      for (Collective collective : {Collective::kReduceScatter, Collective::kAllGather}) {
        CollectiveDemand demand = Demand(
            collective, collective == Collective::kReduceScatter ? Pass::kForward : Pass::kBackward,
            table, sharding, columns);
        demand.devices = devices;
        demand.peers = AllDevices(topology);
        demand.crosses_hosts = !topology.single_host();
        demand.bytes = partial_sums_bytes;
        demands.push_back(std::move(demand));
      }
      break;
    }
    case ShardingType::kTableRowWise: {
      // Reduced within the table's host, then exchanged with the same local rank of every other
      // host (TorchRec: a process group of world_size / local_world_size).
      for (Collective collective : {Collective::kReduceScatter, Collective::kAllGather}) {
        const Pass pass =
            collective == Collective::kReduceScatter ? Pass::kForward : Pass::kBackward;
        CollectiveDemand in_host = Demand(collective, pass, table, sharding, columns);
        in_host.devices = devices;
        in_host.peers = topology.DevicesOnHostOf(devices.front());
        in_host.bytes = partial_sums_bytes;
        demands.push_back(std::move(in_host));
        if (topology.num_hosts() <= 1) continue;
        for (int32_t device : devices) {
          CollectiveDemand across = Demand(Collective::kAllToAll, pass, table, sharding, columns);
          across.devices = {device};
          across.peers = topology.DevicesWithLocalRankOf(device);
          across.crosses_hosts = true;
          // TorchRec: batch_outputs (per rank) x hosts x columns.
          across.bytes = static_cast<double>(batch_size) / topology.num_devices() *
                         topology.num_hosts() * columns * kActivationBytes;
          demands.push_back(std::move(across));
        }
      }
      break;
    }
    case ShardingType::kDataParallel: {
      // The replicas' gradients are summed on every replica: the table's bytes.
      CollectiveDemand demand =
          Demand(Collective::kAllReduce, Pass::kBackward, table, sharding, columns);
      demand.devices = devices;
      demand.peers = devices;
      demand.crosses_hosts = false;
      for (int32_t device : devices) {
        if (topology.host_of(device) != topology.host_of(devices.front())) {
          demand.crosses_hosts = true;
        }
      }
      demand.bytes = static_cast<double>(table.rows) * columns * ElementBytes(table.element_type);
      demands.push_back(std::move(demand));
      break;
    }
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      break;
  }
  return demands;
}

std::vector<CollectiveDemand> TaskCollectives(const Task& task, const Table& table,
                                              const TableSharding& sharding) {
  std::vector<CollectiveDemand> demands =
      TableCollectives(table, sharding, task.topology, task.batch_size);
  if (task.objective == Objective::kInference) {
    // The forward pass only: no gradient exchange, no all-reduce.
    std::erase_if(demands, [](const CollectiveDemand& d) { return d.pass == Pass::kBackward; });
  }
  return demands;
}

ShardView ViewOfShard(const Table& table, const TableSharding& sharding, const Shard& shard) {
  const bool column_level = IsColumnLevel(sharding.sharding_type);
  return ShardView{.table = &table,
                   .rows = shard.row_count,
                   .columns = shard.column_count,
                   .sharding = sharding.sharding_type,
                   .group_size = column_level ? 1 : static_cast<int32_t>(sharding.shards.size()),
                   .row_offset = shard.row_offset};
}

absl::StatusOr<PlacementQueries> DescribePlacement(const Task& task, const Plan& plan) {
  const int num_devices = task.topology.num_devices();
  std::unordered_map<std::string_view, const Table*> table_of;
  for (const Table& table : task.tables) table_of.emplace(table.name, &table);

  PlacementQueries queries;
  queries.shards_per_device.resize(static_cast<size_t>(num_devices));
  queries.dim_sums.assign(static_cast<size_t>(num_devices), 0);
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const TableSharding& sharding = plan.tables[k];
    auto it = table_of.find(sharding.table);
    if (it == table_of.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", k, "].table: unknown table \"", sharding.table, "\""));
    }
    const Table& table = *it->second;
    const bool column_level = IsColumnLevel(sharding.sharding_type);
    for (size_t s = 0; s < sharding.shards.size(); ++s) {
      const Shard& shard = sharding.shards[s];
      // Formatted only for an error: this loop runs over every shard of every plan.
      auto path = [&] { return absl::StrCat("tables[", k, "].shards[", s, "]"); };
      if (shard.device < 0 || shard.device >= num_devices) {
        return absl::InvalidArgumentError(absl::StrCat(path(), ".device: device ", shard.device,
                                                       " does not exist (topology.num_devices is ",
                                                       num_devices, ")"));
      }
      if (shard.row_count < 0 || shard.row_count > table.rows || shard.column_count < 0 ||
          shard.column_count > table.dim) {
        return absl::InvalidArgumentError(absl::StrCat(
            path(), ": a shard of ", shard.row_count, " x ", shard.column_count,
            " does not fit table \"", table.name, "\" (", table.rows, " x ", table.dim, ")"));
      }
      if (column_level) {
        queries.dim_sums[shard.device] += AllToAllColumns(table, shard.column_count);
      }
    }
    // Column-level layouts are always classic (layout_rules.h replicates no column group).
    if (!column_level) {
      const TableLayout layout = LayoutOf(table, sharding);
      if (!IsClassicLayout(layout, num_devices)) {
        RoutedTableQueries routed = QueriesOfRoutedLayout(task, table, sharding, layout);
        for (size_t s = 0; s < sharding.shards.size(); ++s) {
          queries.shards_per_device[sharding.shards[s].device].push_back(routed.shards[s]);
        }
        for (CollectiveDemand& demand : routed.collectives) {
          queries.collectives.push_back(std::move(demand));
        }
        queries.routed_tables.push_back(static_cast<int32_t>(k));
        continue;
      }
    }
    for (const Shard& shard : sharding.shards) {
      queries.shards_per_device[shard.device].push_back(ViewOfShard(table, sharding, shard));
    }
    for (CollectiveDemand& demand : TaskCollectives(task, table, sharding)) {
      queries.collectives.push_back(std::move(demand));
    }
  }
  return queries;
}

}  // namespace shardplan
