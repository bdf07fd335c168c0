#include "planner/search/weighted_greedy.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/pinned_placement.h"
#include "planner/search/placement_units.h"

namespace shardplan {
namespace {

constexpr int kStopPollInterval = 64;

}  // namespace

std::string GreedyWeightAlgorithmName(GreedyWeight weight) {
  switch (weight) {
    case GreedyWeight::kDim:
      return "dim_greedy";
    case GreedyWeight::kSize:
      return "size_greedy";
    case GreedyWeight::kLookup:
      return "lookup_greedy";
    case GreedyWeight::kSizeLookup:
      return "size_lookup_greedy";
  }
  return "greedy";
}

double GreedyTableWeight(GreedyWeight weight, const Table& table, const MemoryOptions& memory) {
  switch (weight) {
    case GreedyWeight::kDim:
      return table.dim;
    case GreedyWeight::kSize:
      return static_cast<double>(TableMemoryBytes(table, memory));
    case GreedyWeight::kLookup:
      return table.dim * table.pooling_factor;
    case GreedyWeight::kSizeLookup:
      return table.dim * table.pooling_factor * std::log10(static_cast<double>(table.rows));
  }
  return 0.0;
}

absl::StatusOr<Plan> WeightedGreedyPlan(
    const Task& task, GreedyWeight weight, const StopSignal& stop,
    const std::function<void(size_t placed, size_t total)>& on_placed) {
  const std::string name = GreedyWeightAlgorithmName(weight);
  SHARDPLAN_RETURN_IF_ERROR(stop.Check());
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<PlacementUnit> units, TableWiseUnits(task, name));
  std::vector<double> unit_cost(units.size(), 0.0);
  for (size_t u = 0; u < units.size(); ++u) {
    for (int t : units[u].tables) {
      const double cost = GreedyTableWeight(weight, task.tables[t], task.memory);
      // ValidateTask rules this out; a NaN would also break the sort's ordering below.
      if (!std::isfinite(cost)) {
        return absl::InvalidArgumentError(absl::StrCat("tables[", t, "]: table \"",
                                                       task.tables[t].name, "\" has weight ", cost,
                                                       " for ", name));
      }
      unit_cost[u] += cost;
    }
  }

  const int num_devices = task.topology.num_devices();
  MemoryLedger ledger(task.topology);
  std::vector<double> cost_sum(static_cast<size_t>(num_devices), 0.0);
  std::vector<int32_t> device_of_unit(units.size(), 0);

  // Pinned units have no choice; placing them first lets the others balance around them.
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::vector<size_t> order,
      PlacePinnedUnits(name, task, units, /*check_memory=*/true, ledger, device_of_unit));
  for (size_t u = 0; u < units.size(); ++u) {
    if (units[u].pinned_device) cost_sum[*units[u].pinned_device] += unit_cost[u];
  }

  // The reference sorts TableInfo(index, cost, size) ascending and pops from the back.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(unit_cost[a], units[a].bytes, units[a].index) >
           std::make_tuple(unit_cost[b], units[b].bytes, units[b].index);
  });
  const size_t report_every = std::max<size_t>(1, order.size() / 10);
  for (size_t k = 0; k < order.size(); ++k) {
    if (k % kStopPollInterval == 0) SHARDPLAN_RETURN_IF_ERROR(stop.Check());
    const size_t u = order[k];
    int best = -1;
    for (int d = 0; d < num_devices; ++d) {
      if (!ledger.Fits(d, units[u].bytes)) continue;
      if (best < 0 || cost_sum[d] < cost_sum[best] ||
          (cost_sum[d] == cost_sum[best] && ledger.used(d) < ledger.used(best))) {
        best = d;
      }
    }
    if (best < 0) return ledger.NoDeviceFits(name, task, units[u]);
    device_of_unit[u] = best;
    ledger.Add(best, units[u].bytes);
    cost_sum[best] += unit_cost[u];
    if (on_placed && (k + 1) % report_every == 0) on_placed(k + 1, order.size());
  }
  return UnitPlan(task, units, device_of_unit);
}

}  // namespace shardplan
