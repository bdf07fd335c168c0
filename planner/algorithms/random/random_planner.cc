#include "planner/algorithms/random/random_planner.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "base/status_macros.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/pinned_placement.h"
#include "planner/search/placement_units.h"

namespace shardplan {
namespace {

constexpr int kRandomStopPollInterval = 64;

}  // namespace

RandomPlanner::RandomPlanner() {
  info_.name = "random";
  info_.description =
      "Each table on a uniformly random device (NeuroShard's random baseline), seeded.";
  ParamSpec respect_memory;
  respect_memory.name = "respect_memory";
  respect_memory.type = ParamType::kBool;
  respect_memory.default_value = "true";
  respect_memory.description =
      "Draw only among devices with memory left for the table; false draws from all devices "
      "as the reference does, and the plan may not fit.";
  info_.params = {respect_memory};
  info_.sharding_types = {ShardingType::kTableWise};
  info_.uses_cost_model = false;
}

absl::StatusOr<Plan> RandomPlanner::Run(const Task& task, const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<PlacementUnit> units, TableWiseUnits(task, info_.name));
  const bool respect_memory = context.params.GetBool("respect_memory");
  const int num_devices = task.topology.num_devices();
  MemoryLedger ledger(task.topology);
  std::vector<int32_t> device_of_unit(units.size(), 0);
  SHARDPLAN_ASSIGN_OR_RETURN(
      const std::vector<size_t> free_units,
      PlacePinnedUnits(info_.name, task, units, respect_memory, ledger, device_of_unit));

  std::mt19937_64 rng(context.seed);
  std::vector<int32_t> candidates;
  candidates.reserve(static_cast<size_t>(num_devices));
  for (size_t k = 0; k < free_units.size(); ++k) {
    if (k % kRandomStopPollInterval == 0) SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    const size_t u = free_units[k];
    const PlacementUnit& unit = units[u];
    candidates.clear();
    for (int d = 0; d < num_devices; ++d) {
      if (!respect_memory || ledger.Fits(d, unit.bytes)) candidates.push_back(d);
    }
    if (candidates.empty()) return ledger.NoDeviceFits(info_.name, task, unit);
    const int32_t device = candidates[UniformBelow(rng, candidates.size())];
    device_of_unit[u] = device;
    ledger.Add(device, unit.bytes);
  }
  return UnitPlan(task, units, device_of_unit);
}

}  // namespace shardplan
