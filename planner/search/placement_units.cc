#include "planner/search/placement_units.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/domain/memory.h"

namespace shardplan {
namespace {

// Union-find over table indices; the root is always the smallest index of its set.
class TableSets {
 public:
  explicit TableSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void Join(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

}  // namespace

std::string PlacementUnit::Describe(const Task& task) const {
  if (tables.size() == 1) return absl::StrCat("table \"", task.tables[tables[0]].name, "\"");
  std::vector<std::string> names;
  for (int t : tables) names.push_back(absl::StrCat("\"", task.tables[t].name, "\""));
  return absl::StrCat("colocation group [", absl::StrJoin(names, ", "), "]");
}

absl::StatusOr<std::vector<PlacementUnit>> TableWiseUnits(const Task& task,
                                                          absl::string_view algorithm) {
  for (const Table& table : task.tables) {
    if (!table.Allows(ShardingType::kTableWise)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "task is infeasible for ", algorithm, ": table \"", table.name,
          "\" does not allow TABLE_WISE sharding, the only kind ", algorithm, " produces"));
    }
  }
  return PlacementUnits(task);
}

absl::StatusOr<std::vector<PlacementUnit>> PlacementUnits(const Task& task) {
  const size_t n = task.tables.size();
  std::unordered_map<std::string_view, int> index_of;
  for (size_t i = 0; i < n; ++i) index_of.emplace(task.tables[i].name, static_cast<int>(i));
  TableSets sets(n);
  for (size_t g = 0; g < task.colocate.size(); ++g) {
    const std::vector<std::string>& group = task.colocate[g];
    for (size_t k = 0; k < group.size(); ++k) {
      auto it = index_of.find(group[k]);
      if (it == index_of.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("colocate[", g, "].tables[", k, "]: unknown table \"", group[k], "\""));
      }
      sets.Join(index_of.at(group[0]), it->second);
    }
  }

  std::vector<PlacementUnit> units;
  std::vector<int> unit_of_root(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const int root = sets.Find(static_cast<int>(i));
    if (unit_of_root[root] < 0) {
      unit_of_root[root] = static_cast<int>(units.size());
      units.emplace_back().index = static_cast<int>(i);
    }
    PlacementUnit& unit = units[unit_of_root[root]];
    const Table& table = task.tables[i];
    unit.tables.push_back(static_cast<int>(i));
    unit.bytes = AddBytes(unit.bytes, TableMemoryBytes(table, task.memory));
    if (!table.pinned_device) continue;
    if (*table.pinned_device < 0 || *table.pinned_device >= task.topology.num_devices()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tables[", i, "].pinned_device: device ", *table.pinned_device,
          " does not exist (topology.num_devices is ", task.topology.num_devices(), ")"));
    }
    if (unit.pinned_device && *unit.pinned_device != *table.pinned_device) {
      return absl::InvalidArgumentError(
          absl::StrCat("colocate: ", unit.Describe(task), " is pinned to different devices (",
                       *unit.pinned_device, " and ", *table.pinned_device, ")"));
    }
    unit.pinned_device = table.pinned_device;
  }
  return units;  // in index order, since each unit is created at its smallest table
}

Plan UnitPlan(const Task& task, const std::vector<PlacementUnit>& units,
              const std::vector<int32_t>& device_of_unit) {
  std::vector<int32_t> device_of_table(task.tables.size(), 0);
  for (size_t u = 0; u < units.size(); ++u) {
    for (int t : units[u].tables) device_of_table[t] = device_of_unit[u];
  }
  return TableWisePlan(task, device_of_table);
}

std::vector<ShardView> UnitShards(const Task& task, const PlacementUnit& unit) {
  std::vector<ShardView> shards;
  shards.reserve(unit.tables.size());
  for (int t : unit.tables) {
    const Table& table = task.tables[t];
    shards.push_back(ShardView{.table = &table, .rows = table.rows, .columns = table.dim});
  }
  return shards;
}

}  // namespace shardplan
