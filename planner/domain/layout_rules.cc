#include "planner/domain/layout_rules.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/validation_paths.h"

namespace shardplan {
namespace {

using validation::Invalid;
using validation::ShardPath;
using validation::TablePath;

constexpr LayoutRules kRules[] = {
    {.type = ShardingType::kTableWise, .whole_rows = true, .whole_columns = true,
     .single_shard = true},
    {.type = ShardingType::kColumnWise, .whole_rows = true, .tiles_columns = true},
    {.type = ShardingType::kRowWise, .whole_columns = true, .tiles_rows = true,
     .replicas = true, .frequency_order = true},
    {.type = ShardingType::kTableRowWise, .whole_columns = true, .tiles_rows = true,
     .one_host = true, .frequency_order = true},
    {.type = ShardingType::kDataParallel, .whole_rows = true, .whole_columns = true,
     .replicas = true},
};

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  size_t shard = 0;
};

// Checks that `intervals` tile [0, size) exactly: no gap, no overlap.
absl::Status CheckTiling(std::vector<Interval> intervals, int64_t size, absl::string_view unit,
                         size_t k, const std::string& table) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  int64_t covered = 0;  // [0, covered) is tiled so far
  for (const Interval& interval : intervals) {
    if (interval.begin > covered) {
      return Invalid(TablePath(k, "shards"),
                     absl::StrCat(unit, " [", covered, ", ", interval.begin, ") of table \"", table,
                                  "\" are not covered"));
    }
    if (interval.begin < covered) {
      return Invalid(ShardPath(k, interval.shard),
                     absl::StrCat(unit, " [", interval.begin, ", ", std::min(interval.end, covered),
                                  ") of table \"", table, "\" are covered by another shard too"));
    }
    covered = interval.end;
  }
  if (covered < size) {
    return Invalid(TablePath(k, "shards"),
                   absl::StrCat(unit, " [", covered, ", ", size, ") of table \"", table,
                                "\" are not covered"));
  }
  return absl::OkStatus();
}

absl::Status CheckShardBounds(const Shard& shard, const Table& table, int num_devices, size_t k,
                              size_t s) {
  if (shard.device < 0 || shard.device >= num_devices) {
    return Invalid(absl::StrCat(ShardPath(k, s), ".device"),
                   absl::StrCat("device ", shard.device,
                                " does not exist (topology.num_devices is ", num_devices, ")"));
  }
  if (shard.row_offset < 0 || shard.row_count < 1 || shard.row_offset > table.rows ||
      shard.row_count > table.rows - shard.row_offset) {
    return Invalid(ShardPath(k, s),
                   absl::StrCat("rows [", shard.row_offset, ", +", shard.row_count,
                                ") are not a non-empty range within the ", table.rows,
                                " rows of table \"", table.name, "\""));
  }
  if (shard.column_offset < 0 || shard.column_count < 1 || shard.column_offset > table.dim ||
      shard.column_count > table.dim - shard.column_offset) {
    return Invalid(ShardPath(k, s),
                   absl::StrCat("columns [", shard.column_offset, ", +", shard.column_count,
                                ") are not a non-empty range within the ", table.dim,
                                " columns of table \"", table.name, "\""));
  }
  return absl::OkStatus();
}

// The per-shard rules: bounds, whole rows / columns, one host.
absl::Status CheckShardShape(const LayoutRules& rules, const TableSharding& sharding,
                             const Table& table, const Topology& topology, size_t k, size_t s) {
  const Shard& shard = sharding.shards[s];
  const char* type_name = ShardingTypeName(rules.type);
  SHARDPLAN_RETURN_IF_ERROR(CheckShardBounds(shard, table, topology.num_devices(), k, s));
  if (rules.whole_rows && (shard.row_offset != 0 || shard.row_count != table.rows)) {
    return Invalid(ShardPath(k, s),
                   absl::StrCat("a ", type_name, " shard spans all rows [0, ", table.rows,
                                ") of table \"", table.name, "\", got rows [", shard.row_offset,
                                ", ", shard.row_offset + shard.row_count, ")"));
  }
  if (rules.whole_columns && (shard.column_offset != 0 || shard.column_count != table.dim)) {
    return Invalid(ShardPath(k, s), absl::StrCat("a ", type_name, " shard spans all columns [0, ",
                                                 table.dim, ") of table \"", table.name,
                                                 "\", got columns [", shard.column_offset, ", ",
                                                 shard.column_offset + shard.column_count, ")"));
  }
  const int32_t first = sharding.shards[0].device;
  if (rules.one_host && topology.host_of(shard.device) != topology.host_of(first)) {
    return Invalid(absl::StrCat(ShardPath(k, s), ".device"),
                   absl::StrCat("a ", type_name, " table stays on one host: device ",
                                shard.device, " is on host ", topology.host_of(shard.device),
                                ", shard 0's device ", first, " on host ", topology.host_of(first),
                                " (", topology.local_world_size(), " devices per host)"));
  }
  return absl::OkStatus();
}

// "rows [a, b)", or "columns [a, b)" for a group of a table split by columns.
std::string RangeOf(const RowGroup& group, bool by_columns) {
  if (by_columns) {
    return absl::StrCat("columns [", group.column_offset, ", ",
                        group.column_offset + group.column_count, ")");
  }
  return absl::StrCat("rows [", group.row_offset, ", ", group.row_offset + group.row_count, ")");
}

// Replicas: only where the type has them, and each on its own device.
absl::Status CheckReplicas(const LayoutRules& rules, const TableLayout& layout,
                           const Table& table, size_t k) {
  for (const RowGroup& group : layout.groups) {
    if (group.replicas() < 2) continue;
    if (!rules.replicas) {
      return Invalid(ShardPath(k, group.shards[1]),
                     absl::StrCat(RangeOf(group, rules.tiles_columns), " of table \"", table.name,
                                  "\" are covered by another shard too (a ",
                                  ShardingTypeName(rules.type),
                                  " table does not replicate; ROW_WISE and DATA_PARALLEL do)"));
    }
    std::set<int32_t> devices;
    for (int32_t i = 0; i < group.replicas(); ++i) {
      if (devices.insert(group.devices[i]).second) continue;
      const std::string what = rules.whole_rows
                                   ? std::string("a replica")
                                   : absl::StrCat("a replica of ", RangeOf(group, rules.tiles_columns));
      return Invalid(absl::StrCat(ShardPath(k, group.shards[i]), ".device"),
                     absl::StrCat("table \"", table.name, "\" already has ", what, " on device ",
                                  group.devices[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRoutes(const TableLayout& layout, const Table& table, int num_devices,
                         size_t k) {
  std::set<std::pair<int32_t, int32_t>> routed;  // (requester, group)
  for (size_t i = 0; i < layout.routes.size(); ++i) {
    const RowRoute& route = layout.routes[i];
    const std::string path = absl::StrCat(TablePath(k, "routes"), "[", i, "]");
    if (route.requester < 0 || route.requester >= num_devices) {
      return Invalid(absl::StrCat(path, ".requester"),
                     absl::StrCat("device ", route.requester,
                                  " does not exist (topology.num_devices is ", num_devices, ")"));
    }
    if (route.shard < 0 || route.shard >= static_cast<int32_t>(layout.group_of_shard.size())) {
      return Invalid(absl::StrCat(path, ".shard"),
                     absl::StrCat("table \"", table.name, "\" has no shard ", route.shard, " (it has ",
                                  layout.group_of_shard.size(), ")"));
    }
    const int32_t group = layout.group_of_shard[route.shard];
    if (layout.groups[group].replicas() < 2) {
      return Invalid(absl::StrCat(path, ".shard"),
                     absl::StrCat("shard ", route.shard, " of table \"", table.name, "\" holds ",
                                  RangeOf(layout.groups[group], false),
                                  " alone: a route chooses among a group's replicas"));
    }
    if (!routed.emplace(route.requester, group).second) {
      return Invalid(path, absl::StrCat("device ", route.requester, " is routed twice for ",
                                        RangeOf(layout.groups[group], false), " of table \"",
                                        table.name, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const LayoutRules* RulesOf(ShardingType type) {
  for (const LayoutRules& rules : kRules) {
    if (rules.type == type) return &rules;
  }
  return nullptr;
}

absl::Status CheckLayoutRules(const TableSharding& sharding, const Table& table,
                              const Topology& topology, size_t k) {
  const LayoutRules* rules = RulesOf(sharding.sharding_type);
  if (rules == nullptr) {
    return Invalid(TablePath(k, "sharding_type"),
                   absl::StrCat("invalid value ", static_cast<int>(sharding.sharding_type)));
  }
  const char* type_name = ShardingTypeName(rules->type);
  if (sharding.shards.empty()) {
    return Invalid(TablePath(k, "shards"),
                   absl::StrCat("table \"", table.name, "\" has no shards"));
  }
  if (rules->single_shard && sharding.shards.size() != 1) {
    return Invalid(TablePath(k, "shards"),
                   absl::StrCat("a ", type_name, " table has exactly one shard, table \"",
                                table.name, "\" has ", sharding.shards.size()));
  }
  if (!rules->frequency_order && sharding.row_order != RowOrder::kNatural) {
    return Invalid(TablePath(k, "row_order"),
                   absl::StrCat(RowOrderName(sharding.row_order), " orders the rows of row-split "
                                "tables (ROW_WISE, TABLE_ROW_WISE); every ", type_name,
                                " shard of table \"", table.name, "\" holds all rows"));
  }
  if (!sharding.rank_bands.empty() && sharding.row_order != RowOrder::kFrequencyRank) {
    return Invalid(TablePath(k, "rank_bands"),
                   absl::StrCat("bands cut ranks, so only rows in FREQUENCY_RANK order; table \"",
                                table.name, "\" is in ", RowOrderName(sharding.row_order),
                                " order"));
  }
  for (size_t b = 0; b < sharding.rank_bands.size(); ++b) {
    const int64_t bound = sharding.rank_bands[b];
    const int64_t low = b == 0 ? 0 : sharding.rank_bands[b - 1];
    if (bound <= low || bound >= table.rows) {
      return Invalid(absl::StrCat(TablePath(k, "rank_bands"), "[", b, "]"),
                     absl::StrCat("boundaries must increase strictly within (0, rows) = (0, ",
                                  table.rows, "), got ", bound,
                                  b == 0 ? "" : absl::StrCat(" after ", low)));
    }
  }
  for (size_t s = 0; s < sharding.shards.size(); ++s) {
    SHARDPLAN_RETURN_IF_ERROR(CheckShardShape(*rules, sharding, table, topology, k, s));
  }
  const TableLayout layout = LayoutOf(table, sharding);
  SHARDPLAN_RETURN_IF_ERROR(CheckReplicas(*rules, layout, table, k));
  SHARDPLAN_RETURN_IF_ERROR(CheckRoutes(layout, table, topology.num_devices(), k));
  if (!rules->tiles_rows && !rules->tiles_columns) return absl::OkStatus();
  std::vector<Interval> tiles;  // one per group
  for (const RowGroup& group : layout.groups) {
    const auto first = static_cast<size_t>(group.shards[0]);
    tiles.push_back(rules->tiles_rows
                        ? Interval{group.row_offset, group.row_offset + group.row_count, first}
                        : Interval{group.column_offset, group.column_offset + group.column_count,
                                   first});
  }
  return rules->tiles_rows ? CheckTiling(std::move(tiles), table.rows, "rows", k, table.name)
                           : CheckTiling(std::move(tiles), table.dim, "columns", k, table.name);
}

}  // namespace shardplan
