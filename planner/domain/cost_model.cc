#include "planner/domain/cost_model.h"

#include <limits>

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

}  // namespace shardplan
