#include "planner/algorithms/flexshard/flexshard_planner.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/flexshard/flexshard_inputs.h"
#include "planner/algorithms/flexshard/flexshard_layout.h"
#include "planner/algorithms/flexshard/flexshard_report.h"
#include "planner/algorithms/flexshard/flexshard_tiers.h"
#include "planner/domain/memory.h"
#include "planner/domain/table_access.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/row_spreading_constraints.h"

namespace shardplan {
namespace {

using flexshard::TierBounds;
using flexshard::TierKindName;

constexpr char kName[] = "flexshard";

ParamSpec Spec(std::string name, ParamType type, std::string default_value,
               std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.description = std::move(description);
  return spec;
}

// Adds `sharding`'s shards to `ledger`; FAILED_PRECONDITION naming the table, the tier, the
// device and the bytes for the first that does not fit.
absl::Status Place(const Task& task, const Table& table, const TableSharding& sharding,
                   const TierBounds& bounds, MemoryLedger& ledger) {
  for (const Shard& shard : sharding.shards) {
    const int64_t bytes =
        ShardMemoryBytes(table, shard.row_count, shard.column_count, task.memory);
    if (!ledger.Fits(shard.device, bytes)) {
      const int64_t free = std::max<int64_t>(ledger.capacity(shard.device) -
                                                 ledger.used(shard.device),
                                             0);
      return absl::FailedPreconditionError(absl::StrCat(
          "task is infeasible for ", kName, ": table \"", table.name, "\"'s ",
          TierKindName(bounds.TierOf(shard.row_offset)), " tier (ranks [", shard.row_offset, ", ",
          shard.row_offset + shard.row_count, ")) needs ", FormatGiB(bytes), " (", bytes,
          " bytes) on device ", shard.device, ", which has ", FormatGiB(free), " (", free,
          " bytes) free of ", FormatGiB(ledger.capacity(shard.device))));
    }
    ledger.Add(shard.device, bytes);
  }
  return absl::OkStatus();
}

}  // namespace

FlexShardPlanner::FlexShardPlanner() {
  info_.name = kName;
  info_.description =
      "FlexShard (MLSys'23): rows of every table by access probability, the hottest replicated "
      "on every device (DP), the next replicated per host, one slice per local rank (Flex), the "
      "rest row-wise (RW), within the task's replication_budget (memory-neutral by default); "
      "ROW_WISE in frequency-rank order. Needs full hosts.";
  ParamSpec tiers = Spec("tiers", ParamType::kInt, "3",
                         "3: DP to the memory break-even, Flex while the memory DP saved lasts, "
                         "RW; 2: DP to the budget (and the communication break-even), RW.");
  tiers.min_value = 2;
  tiers.max_value = 3;
  info_.params = {
      tiers,
      Spec("cut_flex_at_comm_breakpoint", ParamType::kBool, "false",
           "Also end the Flex tier where a row stops saving communication against RW (p_flex); "
           "the paper is ambiguous, docs/flexshard.md."),
      Spec("round_to_devices", ParamType::kBool, "false",
           "Round each table's DP and Flex rows down to a multiple of the device count, as the "
           "paper's Table 5 reports tiers."),
  };
  info_.sharding_types = {ShardingType::kRowWise};
  info_.uses_cost_model = false;
  info_.plans_row_layouts = true;
}

absl::StatusOr<Plan> FlexShardPlanner::Run(const Task& task,
                                           const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  SHARDPLAN_RETURN_IF_ERROR(CheckRowSpreadingConstraints(task, kName));
  SHARDPLAN_ASSIGN_OR_RETURN(flexshard::TaskTierInputs inputs, flexshard::TierInputsOf(task));
  inputs.inputs.cut_flex_at_comm_breakpoint =
      context.params.GetBool("cut_flex_at_comm_breakpoint");
  SHARDPLAN_ASSIGN_OR_RETURN(const flexshard::TierResult result,
                             flexshard::ComputeTiers(inputs.inputs));
  flexshard::TierPlan tiers =
      context.params.GetInt("tiers") == 2 ? result.two_tier : result.three_tier;
  if (context.params.GetBool("round_to_devices")) {
    SHARDPLAN_ASSIGN_OR_RETURN(tiers, flexshard::RoundedToDevices(inputs.inputs, tiers));
  }

  Plan plan;
  MemoryLedger ledger(task.topology);
  for (size_t t = 0; t < task.tables.size(); ++t) {
    SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    const Table& table = task.tables[t];
    if (inputs.curves[t].rows() != table.rows) {
      return absl::FailedPreconditionError(absl::StrCat(
          "tables[", t, "].access_profile: table \"", table.name, "\"'s access curve ranks ",
          inputs.curves[t].rows(), " rows, the table has ", table.rows));
    }
    const TierBounds bounds{.dp_end = tiers.dp.ranks[t].second,
                            .flex_end = tiers.flex.ranks[t].second};
    TableSharding sharding = flexshard::FlexShardSharding(table, task.topology, bounds);
    SHARDPLAN_RETURN_IF_ERROR(Place(task, table, sharding, bounds, ledger));
    plan.tables.push_back(std::move(sharding));
  }
  plan.parameters = flexshard::TierReport(inputs.inputs, result, tiers);
  return plan;
}

}  // namespace shardplan
