#ifndef SHARDPLAN_PLANNER_SEARCH_PLACEMENT_UNITS_H_
#define SHARDPLAN_PLANNER_SEARCH_PLACEMENT_UNITS_H_

// Tables grouped into units that move together (a colocation group is one unit, a pinned table
// stays on its device): what every placing algorithm starts from.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"

namespace shardplan {

// One table, or a colocation group, placed whole on one device.
struct PlacementUnit {
  std::vector<int> tables;  // task.tables indices, ascending
  int index = 0;            // tables.front(): ranks units as the reference ranks tables
  int64_t bytes = 0;        // memory of all its tables
  std::optional<int32_t> pinned_device;

  // 'table "t7"' or 'colocation group ["a", "b"]', for error messages.
  std::string Describe(const Task& task) const;
};

// The task's tables as units sorted by index. FAILED_PRECONDITION when a table does not allow
// TABLE_WISE (naming the table and `algorithm`); INVALID_ARGUMENT for colocation groups that
// ValidateTask rejects (unknown tables, conflicting pins). Tables named by two groups join one
// unit.
absl::StatusOr<std::vector<PlacementUnit>> TableWiseUnits(const Task& task,
                                                          absl::string_view algorithm);

// The same without the TABLE_WISE check, for planners that also cut tables: a unit of several
// tables, or a pinned one, must still land whole on one device.
absl::StatusOr<std::vector<PlacementUnit>> PlacementUnits(const Task& task);

// The table-wise plan that puts every table of unit u on device_of_unit[u].
Plan UnitPlan(const Task& task, const std::vector<PlacementUnit>& units,
              const std::vector<int32_t>& device_of_unit);

// The cost model's view of every table of `unit` (whole tables).
std::vector<ShardView> UnitShards(const Task& task, const PlacementUnit& unit);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_PLACEMENT_UNITS_H_
