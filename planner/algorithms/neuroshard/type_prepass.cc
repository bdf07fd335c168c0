#include "planner/algorithms/neuroshard/type_prepass.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "planner/algorithms/neuroshard/table_layouts.h"
#include "planner/domain/memory.h"
#include "planner/domain/sharding_semantics.h"

namespace shardplan::neuroshard {
namespace {

// Tables that must stay whole on one device: pinned ones and colocation groups' members.
std::vector<bool> Anchored(const Task& task) {
  std::set<std::string> colocated;
  for (const std::vector<std::string>& group : task.colocate) {
    if (group.size() > 1) colocated.insert(group.begin(), group.end());
  }
  std::vector<bool> anchored(task.tables.size());
  for (size_t t = 0; t < task.tables.size(); ++t) {
    anchored[t] =
        task.tables[t].pinned_device.has_value() || colocated.count(task.tables[t].name) > 0;
  }
  return anchored;
}

// The all-to-all time (ms, summed over devices) that `dim` more columns on device 0 add when
// every device holds the mean dim sum. Dims repeat across tables: memoised per dim.
class AllToAllShare {
 public:
  AllToAllShare(const Task& task, const CostModel& model) : task_(task), model_(model) {
    int64_t dims = 0;
    for (const Table& table : task.tables) dims += table.dim;
    base_.assign(static_cast<size_t>(task.topology.num_devices()),
                 dims / std::max(1, task.topology.num_devices()));
    base_ms_ = Total(base_);
  }
  double Of(int32_t dim) {
    auto [it, added] = memo_.try_emplace(dim, 0.0);
    if (added) {
      std::vector<int64_t> with = base_;
      with[0] += dim;
      it->second = Total(with) - base_ms_;
    }
    return it->second;
  }

 private:
  double Total(const std::vector<int64_t>& dim_sums) const {
    const CostContext context = CostContext::For(task_);
    const std::vector<double> waits(dim_sums.size(), 0.0);
    double total = 0.0;
    for (double ms : model_.BackwardCommCosts(context, dim_sums)) total += ms;
    for (double ms : model_.ForwardCommCosts(context, dim_sums, waits)) total += ms;
    return total;
  }

  const Task& task_;
  const CostModel& model_;
  std::vector<int64_t> base_;
  double base_ms_ = 0.0;
  std::map<int32_t, double> memo_;
};

// The costliest device of `sharding` alone: compute of its shard and the collectives charged
// to it. Row blocks are even (the first is the largest), so only the first device is costed.
double LayoutDeviceMs(const Task& task, const CostModel& model, const Table& table,
                      const TableSharding& sharding, double empty_ms) {
  const CostContext context = CostContext::For(task);
  const Shard& shard = sharding.shards.front();
  const ShardView view{.table = &table,
                       .rows = shard.row_count,
                       .columns = shard.column_count,
                       .sharding = sharding.sharding_type,
                       .group_size = static_cast<int32_t>(sharding.shards.size()),
                       .row_offset = shard.row_offset};
  double ms = model.ComputeCost(context, {&view, 1}) - empty_ms;
  const std::vector<CollectiveDemand> demands =
      TableCollectives(table, sharding, task.topology, task.batch_size);
  if (!demands.empty()) {
    const CollectiveCosts costs = model.CostCollectives(context, demands);
    ms += costs.forward_ms[shard.device] + costs.backward_ms[shard.device];
  }
  return ms;
}

bool FitsEvery(const std::vector<int64_t>& used, const std::vector<int64_t>& capacity) {
  for (size_t d = 0; d < used.size(); ++d) {
    if (used[d] > capacity[d]) return false;
  }
  return true;
}

}  // namespace

bool TypeStart::any_movable() const {
  return std::find(movable.begin(), movable.end(), true) != movable.end();
}

bool TypeStart::any_chosen() const {
  for (size_t t = 0; t < layout.size(); ++t) {
    if (layout[t].has_value() && !forced[t]) return true;
  }
  return false;
}

TypeStart ChooseTypeStart(const Task& task, const CostModel& model) {
  const size_t num_tables = task.tables.size();
  const Topology& topology = task.topology;
  const int num_devices = topology.num_devices();
  TypeStart start;
  start.movable.assign(num_tables, false);
  start.layout.assign(num_tables, std::nullopt);
  start.forced.assign(num_tables, false);
  start.gain.assign(num_tables, 0.0);
  if (num_devices < 2) return start;
  const std::vector<bool> anchored = Anchored(task);
  for (size_t t = 0; t < num_tables; ++t) {
    if (anchored[t]) continue;
    for (ShardingType type : kRowLevelTypes) {
      if (MayUse(task.tables[t], model, type)) start.movable[t] = true;
    }
  }
  if (!start.any_movable()) return start;

  const CostContext context = CostContext::For(task);
  const double empty_ms = model.ComputeCost(context, {});
  AllToAllShare all_to_all(task, model);
  std::vector<double> column_ms(num_tables, 0.0);
  double balanced = 0.0;
  for (size_t t = 0; t < num_tables; ++t) {
    const Table& table = task.tables[t];
    const ShardView whole{.table = &table, .rows = table.rows, .columns = table.dim};
    column_ms[t] = model.ComputeCost(context, {&whole, 1}) - empty_ms + all_to_all.Of(table.dim);
    balanced += column_ms[t] / num_devices;
  }

  // Each movable table's best layout (host 0 for TABLE_ROW_WISE: hosts are alike until loaded).
  const int64_t largest_device =
      *std::max_element(topology.memory_bytes.begin(), topology.memory_bytes.end());
  struct Option {
    ShardingType type = ShardingType::kTableWise;
    double ms = std::numeric_limits<double>::infinity();
  };
  std::vector<Option> best(num_tables);
  for (size_t t = 0; t < num_tables; ++t) {
    if (!start.movable[t]) continue;
    const Table& table = task.tables[t];
    const bool too_large = TableMemoryBytes(table, task.memory) > largest_device;
    // The column-level search starts every table whole (TABLE_WISE) before it halves any.
    const bool column_level = table.Allows(ShardingType::kTableWise);
    for (ShardingType type : kRowLevelTypes) {
      if (!MayUse(table, model, type)) continue;
      if (too_large && type == ShardingType::kDataParallel) continue;
      const TableSharding layout = RowLevelLayout(type, table, topology, 0);
      if (layout.shards.empty()) continue;
      const double ms = LayoutDeviceMs(task, model, table, layout, empty_ms);
      if (ms < best[t].ms) best[t] = {type, ms};
    }
    if (best[t].type == ShardingType::kTableWise) continue;
    start.forced[t] = too_large || !column_level;
    start.gain[t] =
        std::max(balanced, column_ms[t]) - (balanced - column_ms[t] / num_devices + best[t].ms);
  }

  // Forced tables first, then by gain (largest first), ties to the lower index.
  std::vector<size_t> order;
  for (size_t t = 0; t < num_tables; ++t) {
    if (best[t].type != ShardingType::kTableWise && (start.forced[t] || start.gain[t] > 0)) {
      order.push_back(t);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (start.forced[a] != start.forced[b]) return static_cast<bool>(start.forced[a]);
    return start.gain[a] > start.gain[b];
  });
  std::vector<int64_t> used(static_cast<size_t>(num_devices), 0);
  int64_t column_bytes = 0;  // what the column-level search will still have to place
  for (size_t t = 0; t < num_tables; ++t) {
    column_bytes = AddBytes(column_bytes, TableMemoryBytes(task.tables[t], task.memory));
  }
  int64_t capacity = 0;
  for (int64_t bytes : topology.memory_bytes) capacity = AddBytes(capacity, bytes);
  std::vector<double> host_load(static_cast<size_t>(topology.num_hosts()), 0.0);
  for (size_t t : order) {
    const Table& table = task.tables[t];
    int host = 0;
    if (best[t].type == ShardingType::kTableRowWise) {
      host = static_cast<int>(std::min_element(host_load.begin(), host_load.end()) -
                              host_load.begin());
    }
    TableSharding layout = RowLevelLayout(best[t].type, table, topology, host);
    AddLayoutBytes(table, layout, task.memory, +1, used);
    const int64_t table_bytes = TableMemoryBytes(table, task.memory);
    int64_t used_total = 0;
    for (int64_t bytes : used) used_total = AddBytes(used_total, bytes);
    const bool fits = FitsEvery(used, topology.memory_bytes) &&
                      AddBytes(used_total, column_bytes - table_bytes) <= capacity;
    if (!fits) {  // a forced table is left to the search, which names it as infeasible
      AddLayoutBytes(table, layout, task.memory, -1, used);
      continue;
    }
    column_bytes -= table_bytes;
    if (best[t].type == ShardingType::kTableRowWise) host_load[host] += best[t].ms;
    start.layout[t] = std::move(layout);
  }
  return start;
}

}  // namespace shardplan::neuroshard
