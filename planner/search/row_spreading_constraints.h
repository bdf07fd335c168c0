#ifndef SHARDPLAN_PLANNER_SEARCH_ROW_SPREADING_CONSTRAINTS_H_
#define SHARDPLAN_PLANNER_SEARCH_ROW_SPREADING_CONSTRAINTS_H_

// What a planner that cuts every table into ROW_WISE row groups over the devices (FlexShard,
// OPER) cannot keep: a table that does not allow ROW_WISE, a pinned table, a colocation group;
// and every table's access profile must be usable.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "planner/domain/task.h"

namespace shardplan {

// OK, or FAILED_PRECONDITION naming the field ("tables[2].pinned_device: task is infeasible for
// <algorithm>: ..."), or INVALID_ARGUMENT for an unusable access profile.
absl::Status CheckRowSpreadingConstraints(const Task& task, absl::string_view algorithm);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_ROW_SPREADING_CONSTRAINTS_H_
