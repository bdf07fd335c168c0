#include "planner/domain/cost_model.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {

CollectiveCosts CostModel::CostCollectives(const CostContext& context,
                                           std::span<const CollectiveDemand> demands) const {
  const size_t n = static_cast<size_t>(context.topology->num_devices());
  CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (const CollectiveDemand& demand : demands) {
    std::vector<double>& pass =
        demand.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms;
    for (int32_t device : demand.devices) {
      pass[static_cast<size_t>(device)] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return costs;
}

absl::Status CheckCostsAllowedTypes(const CostModel& model, const Task& task) {
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    if (table.allowed_sharding_types.empty()) continue;  // all: TABLE_WISE is always costed
    bool costed = false;
    std::vector<std::string> names;
    for (ShardingType type : table.allowed_sharding_types) {
      costed = costed || model.CostsShardingType(type);
      names.push_back(ShardingTypeName(type));
    }
    if (!costed) {
      return absl::FailedPreconditionError(absl::StrCat(
          "tables[", t, "].allowed_sharding_types: table \"", table.name, "\" allows only ",
          absl::StrJoin(names, ", "), ", none of which cost model ", model.id(),
          " can cost (analytic@1 costs every type)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace shardplan
