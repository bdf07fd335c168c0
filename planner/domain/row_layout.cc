#include "planner/domain/row_layout.h"

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace shardplan {

bool TableLayout::Replicated() const {
  for (const RowGroup& group : groups) {
    if (group.replicas() > 1) return true;
  }
  return false;
}

TableLayout LayoutOf(const Table& table, const TableSharding& sharding) {
  TableLayout layout{.table = &table,
                     .sharding_type = sharding.sharding_type,
                     .row_order = sharding.row_order,
                     .groups = {},
                     .group_of_shard = {},
                     .routes = sharding.routes};
  std::map<std::tuple<int64_t, int64_t, int32_t, int32_t>, int32_t> group_of_range;
  layout.group_of_shard.reserve(sharding.shards.size());
  for (size_t s = 0; s < sharding.shards.size(); ++s) {
    const Shard& shard = sharding.shards[s];
    const auto [it, inserted] = group_of_range.emplace(
        std::make_tuple(shard.row_offset, shard.row_count, shard.column_offset,
                        shard.column_count),
        static_cast<int32_t>(layout.groups.size()));
    if (inserted) {
      layout.groups.push_back(RowGroup{.row_offset = shard.row_offset,
                                       .row_count = shard.row_count,
                                       .column_offset = shard.column_offset,
                                       .column_count = shard.column_count,
                                       .shards = {},
                                       .devices = {}});
    }
    RowGroup& group = layout.groups[it->second];
    group.shards.push_back(static_cast<int32_t>(s));
    group.devices.push_back(shard.device);
    layout.group_of_shard.push_back(it->second);
  }
  return layout;
}

namespace {

// The default route: the requester's own replica, else the lowest device on its host, else
// the lowest device (lowest device: ties between shards on one device go to the first shard).
int32_t DefaultServingShard(const RowGroup& group, int32_t requester, const Topology& topology) {
  int32_t same_host = -1;
  int32_t lowest = -1;
  for (int32_t i = 0; i < group.replicas(); ++i) {
    const int32_t device = group.devices[i];
    if (device == requester) return group.shards[i];
    const auto lower = [&](int32_t best) { return best < 0 || device < group.devices[best]; };
    if (topology.host_of(device) == topology.host_of(requester) && lower(same_host)) {
      same_host = i;
    }
    if (lower(lowest)) lowest = i;
  }
  return group.shards[same_host >= 0 ? same_host : lowest];
}

}  // namespace

std::vector<std::vector<int32_t>> ServingShards(const TableLayout& layout,
                                                const Topology& topology) {
  const int num_devices = topology.num_devices();
  std::vector<std::vector<int32_t>> serving(layout.groups.size());
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    serving[g].resize(static_cast<size_t>(num_devices));
    for (int32_t r = 0; r < num_devices; ++r) {
      serving[g][r] = DefaultServingShard(layout.groups[g], r, topology);
    }
  }
  for (const RowRoute& route : layout.routes) {
    if (route.shard < 0 || route.shard >= static_cast<int32_t>(layout.group_of_shard.size()) ||
        route.requester < 0 || route.requester >= num_devices) {
      continue;
    }
    serving[layout.group_of_shard[route.shard]][route.requester] = route.shard;
  }
  return serving;
}

bool IsClassicLayout(const TableLayout& layout, int num_devices) {
  if (!layout.routes.empty() || layout.row_order != RowOrder::kNatural) return false;
  if (layout.sharding_type == ShardingType::kDataParallel) {
    return layout.groups.size() == 1 && layout.groups[0].replicas() == num_devices;
  }
  return !layout.Replicated();
}

absl::StatusOr<std::vector<const Table*>> TablesOfPlan(const Task& task, const Plan& plan) {
  const int num_devices = task.topology.num_devices();
  std::unordered_map<std::string_view, const Table*> table_of;
  for (const Table& table : task.tables) table_of.emplace(table.name, &table);
  std::vector<const Table*> tables;
  tables.reserve(plan.tables.size());
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const TableSharding& sharding = plan.tables[k];
    const auto it = table_of.find(sharding.table);
    if (it == table_of.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", k, "].table: unknown table \"", sharding.table, "\""));
    }
    for (size_t s = 0; s < sharding.shards.size(); ++s) {
      const int32_t device = sharding.shards[s].device;
      if (device < 0 || device >= num_devices) {
        return absl::InvalidArgumentError(
            absl::StrCat("tables[", k, "].shards[", s, "].device: device ", device,
                         " does not exist (topology.num_devices is ", num_devices, ")"));
      }
    }
    tables.push_back(it->second);
  }
  return tables;
}

}  // namespace shardplan
