#include "planner/domain/access_figures.h"

#include <algorithm>
#include <optional>

#include "base/status_macros.h"
#include "planner/domain/fetch_cost.h"
#include "planner/domain/plan_memory.h"
#include "planner/domain/routed_layout_queries.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/table_access.h"

namespace shardplan {
namespace {

// Adds one table's lookups and fetches to `figures` (Eqs. 2-3).
void AddTableFetches(const Task& task, const Table& table, const TableSharding& sharding,
                     const FetchCostMatrix& cost, AccessFigures& figures) {
  const int devices = task.topology.num_devices();
  const TableLayout layout = LayoutOf(table, sharding);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, task.topology);
  // Only rows that are ranks read the curve: a natural layout's rows serve rows / rows.
  const RankFrequencyCurve curve = RowsAreRanks(table, sharding)
                                       ? CurveOf(table, task.batch_size)
                                       : RankFrequencyCurve::Uniform(table.rows);
  const double lookups_per_requester =
      table.pooling_factor * static_cast<double>(task.batch_size) / devices;
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    const RowGroup& group = layout.groups[g];
    const double share =
        AccessOfRows(table, sharding, curve, group.row_offset, group.row_offset + group.row_count)
            .share;
    const double lookups = lookups_per_requester * share;
    const double row_bytes =
        static_cast<double>(group.column_count) * ElementBytes(table.element_type);
    for (int i = 0; i < devices; ++i) {
      const int j = sharding.shards[serving[g][i]].device;
      figures.lookups[j] += lookups;
      figures.lookup_bytes[j] += lookups * row_bytes;
      figures.communication_us[static_cast<size_t>(i) * devices + j] +=
          lookups * cost.FetchUs(i, j, row_bytes);
      if (i != j) figures.fetch_bytes[i] += lookups * row_bytes;
    }
  }
}

}  // namespace

absl::StatusOr<AccessFigures> AccessFiguresOf(const Task& task, const Plan& plan) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<const Table*> tables, TablesOfPlan(task, plan));
  SHARDPLAN_ASSIGN_OR_RETURN(const PlanMemory memory, PlanMemoryOf(task, plan));
  const int devices = task.topology.num_devices();
  AccessFigures figures;
  for (const DeviceMemory& device : memory.devices) figures.memory_bytes.push_back(device.bytes);
  figures.lookups.assign(devices, 0.0);
  figures.lookup_bytes.assign(devices, 0.0);
  figures.communication_us.assign(static_cast<size_t>(devices) * devices, 0.0);
  figures.fetch_us.assign(devices, 0.0);
  figures.fetch_bytes.assign(devices, 0.0);
  figures.serve_us.assign(devices, 0.0);

  const FetchCostMatrix cost = FetchCostMatrix::OfTopology(task.topology);
  for (size_t t = 0; t < plan.tables.size(); ++t) {
    AddTableFetches(task, *tables[t], plan.tables[t], cost, figures);
  }
  for (int i = 0; i < devices; ++i) {
    for (int j = 0; j < devices; ++j) {
      if (i == j) continue;
      const double us = figures.communication(i, j);
      figures.fetch_us[i] += us;
      figures.serve_us[j] += us;
      figures.total_communication_us += us;
    }
    figures.total_fetch_bytes += figures.fetch_bytes[i];
  }
  figures.memory_balance = DegreeOfBalance(
      std::vector<double>(figures.memory_bytes.begin(), figures.memory_bytes.end()));
  figures.lookup_balance = DegreeOfBalance(figures.lookup_bytes);
  figures.communication_balance = DegreeOfBalance(figures.fetch_us);
  return figures;
}

double DegreeOfBalance(const std::vector<double>& values) {
  if (values.empty()) return 1.0;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return *high > 0.0 ? *low / *high : 1.0;
}

}  // namespace shardplan
