#include "planner/search/row_spreading_constraints.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/table_access.h"

namespace shardplan {

absl::Status CheckRowSpreadingConstraints(const Task& task, absl::string_view algorithm) {
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    if (!table.Allows(ShardingType::kRowWise)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "tables[", t, "].allowed_sharding_types: task is infeasible for ", algorithm,
          ": table \"", table.name, "\" does not allow ROW_WISE sharding, the only kind ",
          algorithm, " produces"));
    }
    if (table.pinned_device) {
      return absl::FailedPreconditionError(
          absl::StrCat("tables[", t, "].pinned_device: task is infeasible for ", algorithm,
                       ": table \"", table.name, "\" is pinned to device ", *table.pinned_device,
                       ", but ", algorithm, " spreads every table's rows over the devices"));
    }
    SHARDPLAN_RETURN_IF_ERROR(ValidateAccessProfile(table, absl::StrCat("tables[", t, "]")));
  }
  if (!task.colocate.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "colocate[0]: task is infeasible for ", algorithm, ": ", algorithm,
        " spreads every table's rows over the devices, so it cannot keep a colocation group's "
        "tables on one device"));
  }
  return absl::OkStatus();
}

}  // namespace shardplan
