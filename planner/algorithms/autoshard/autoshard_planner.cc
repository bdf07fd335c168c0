#include "planner/algorithms/autoshard/autoshard_planner.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/autoshard/autoshard_episode.h"
#include "planner/algorithms/autoshard/autoshard_network.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/pinned_placement.h"
#include "planner/search/placement_units.h"

namespace shardplan {

AutoShardPlanner::AutoShardPlanner() {
  info_.name = "autoshard";
  info_.description =
      "AutoShard's trained LSTM policy (KDD 2022): whole tables, largest predicted cost first, "
      "each to the device the policy scores highest.";
  ParamSpec mask_memory;
  mask_memory.name = "mask_memory";
  mask_memory.type = ParamType::kBool;
  mask_memory.default_value = "true";
  mask_memory.description =
      "Let only devices with memory left for the table compete; false takes the argmax over "
      "all devices as the reference does, and the plan may not fit.";
  info_.params = {PolicyParamSpec(), mask_memory};
  info_.sharding_types = {ShardingType::kTableWise};
  info_.uses_cost_model = false;
  info_.uses_policy = true;
}

absl::Status AutoShardPlanner::CheckPolicy(const Policy& policy) const {
  return CheckAutoShardPolicy(policy);
}

absl::StatusOr<Plan> AutoShardPlanner::Run(const Task& task, const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  if (context.policy == nullptr) {
    return absl::FailedPreconditionError("autoshard plans with a policy, and none was given");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const AutoShardNetwork network,
                             AutoShardNetwork::FromPolicy(*context.policy));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<PlacementUnit> units, TableWiseUnits(task, info_.name));
  const bool mask_memory = context.params.GetBool("mask_memory");
  const int num_devices = task.topology.num_devices();
  MemoryLedger ledger(task.topology);
  std::vector<int32_t> device_of_unit(units.size(), 0);
  SHARDPLAN_ASSIGN_OR_RETURN(
      const std::vector<size_t> free_units,
      PlacePinnedUnits(info_.name, task, units, mask_memory, ledger, device_of_unit));

  std::vector<bool> allowed(num_devices, true);
  auto choose = [&](size_t step, const PlacementUnit& unit,
                    std::span<const float> logits) -> absl::StatusOr<int32_t> {
    for (int d = 0; d < num_devices; ++d) allowed[d] = !mask_memory || ledger.Fits(d, unit.bytes);
    const int32_t device = FirstArgmax(logits, allowed);
    if (device < 0) return ledger.NoDeviceFits(info_.name, task, unit);
    ledger.Add(device, unit.bytes);
    if (context.on_progress) {
      context.on_progress(PlanningProgress{
          absl::StrCat(info_.name, ": placed ", step + 1, "/", free_units.size(), " units"),
          static_cast<double>(step + 1) / static_cast<double>(free_units.size())});
    }
    return device;
  };
  SHARDPLAN_RETURN_IF_ERROR(RunAutoShardEpisode(network, task, units, free_units, choose,
                                                context.stop, device_of_unit,
                                                /*record=*/false)
                                .status());
  return UnitPlan(task, units, device_of_unit);
}

}  // namespace shardplan
