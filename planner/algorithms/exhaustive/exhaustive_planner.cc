#include "planner/algorithms/exhaustive/exhaustive_planner.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/memory.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/pinned_placement.h"
#include "planner/search/placement_units.h"

namespace shardplan {
namespace {

// Steps (nodes and leaves) between stop checks: a leaf costs num_devices + 2 model calls, so
// this keeps the reaction to a deadline within milliseconds even for slow models.
constexpr int64_t kExhaustiveStopPollInterval = 16;

// base^exponent, or nullopt past int64.
std::optional<int64_t> CheckedPower(int64_t base, size_t exponent) {
  int64_t result = 1;
  for (size_t i = 0; i < exponent && result != 0; ++i) {
    if (__builtin_mul_overflow(result, base, &result)) return std::nullopt;
  }
  return result;
}

}  // namespace

ExhaustivePlanner::ExhaustivePlanner() {
  info_.name = "exhaustive";
  info_.description =
      "Exact optimum over all table-wise placements under the cost model (tiny tasks only).";
  ParamSpec max_placements;
  max_placements.name = "max_placements";
  max_placements.type = ParamType::kInt;
  max_placements.default_value = "1000000";
  max_placements.description =
      "Refuse tasks with more than this many placements to search "
      "(num_devices ^ unpinned tables).";
  max_placements.min_value = 1;
  info_.params = {max_placements};
  info_.sharding_types = {ShardingType::kTableWise};
  info_.uses_cost_model = true;
}

absl::StatusOr<Plan> ExhaustivePlanner::Run(const Task& task,
                                            const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<PlacementUnit> units, TableWiseUnits(task, info_.name));
  const int num_devices = task.topology.num_devices();
  MemoryLedger ledger(task.topology);
  std::vector<std::vector<ShardView>> shards_per_device(static_cast<size_t>(num_devices));
  std::vector<std::vector<ShardView>> unit_shards(units.size());
  std::vector<int32_t> device_of_unit(units.size(), 0);
  SHARDPLAN_ASSIGN_OR_RETURN(
      const std::vector<size_t> free_units,
      PlacePinnedUnits(info_.name, task, units, /*check_memory=*/true, ledger, device_of_unit));
  for (size_t u = 0; u < units.size(); ++u) {
    unit_shards[u] = UnitShards(task, units[u]);
    if (!units[u].pinned_device) continue;
    auto& shards = shards_per_device[*units[u].pinned_device];
    shards.insert(shards.end(), unit_shards[u].begin(), unit_shards[u].end());
  }

  const int64_t max_placements = context.params.GetInt("max_placements");
  const std::optional<int64_t> placements = CheckedPower(num_devices, free_units.size());
  if (!placements || *placements > max_placements) {
    return absl::ResourceExhaustedError(
        absl::StrCat("exhaustive: ", num_devices, "^", free_units.size(), " = ",
                     placements ? absl::StrCat(*placements) : std::string("more than 2^63"),
                     " placements (devices ^ unpinned tables) exceed parameters.max_placements = ",
                     max_placements));
  }
  // A unit larger than any device's room can never be placed: name it rather than search.
  for (size_t u : free_units) {
    bool fits_somewhere = false;
    for (int d = 0; d < num_devices && !fits_somewhere; ++d) {
      fits_somewhere = ledger.Fits(d, units[u].bytes);
    }
    if (!fits_somewhere) return ledger.NoDeviceFits(info_.name, task, units[u]);
  }

  // Iterative depth-first search: choice[level] is the device of free_units[level], -1 while
  // that level has not placed its unit yet.
  const CostContext cost_context = CostContext::For(task);
  const size_t depth = free_units.size();
  std::vector<int> choice(depth + 1, -1);
  std::vector<int32_t> best_devices;
  double best_cost = std::numeric_limits<double>::infinity();
  bool found = false;
  int64_t steps = 0;
  int64_t leaves = 0;
  auto unplace = [&](size_t level) {
    const size_t u = free_units[level];
    const int d = choice[level];
    ledger.Remove(d, units[u].bytes);
    auto& shards = shards_per_device[d];
    shards.resize(shards.size() - unit_shards[u].size());  // last in, first out
  };

  size_t level = 0;
  for (;;) {
    if (++steps % kExhaustiveStopPollInterval == 0)
      SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    if (level == depth) {
      ++leaves;
      const PlacementCost cost =
          CostOfPlacement(*context.cost_model, cost_context, shards_per_device);
      if (!found || cost.cost_ms < best_cost) {  // strict: the first found wins ties
        found = true;
        best_cost = cost.cost_ms;
        for (size_t k = 0; k < depth; ++k) device_of_unit[free_units[k]] = choice[k];
      }
      if (depth == 0) break;
      --level;
      continue;
    }
    if (choice[level] >= 0) unplace(level);
    int next = choice[level] + 1;
    while (next < num_devices && !ledger.Fits(next, units[free_units[level]].bytes)) ++next;
    if (level == 0 && choice[0] >= 0 && context.on_progress) {
      context.on_progress(
          PlanningProgress{absl::StrCat("exhaustive: searched ", choice[0] + 1, "/", num_devices,
                                        " branches of the first table, ", leaves, " placements"),
                           static_cast<double>(choice[0] + 1) / num_devices});
    }
    if (next >= num_devices) {
      choice[level] = -1;
      if (level == 0) break;
      --level;
      continue;
    }
    const size_t u = free_units[level];
    choice[level] = next;
    ledger.Add(next, units[u].bytes);
    auto& shards = shards_per_device[next];
    shards.insert(shards.end(), unit_shards[u].begin(), unit_shards[u].end());
    ++level;
  }

  if (!found) {
    int64_t total = 0;
    int64_t capacity = 0;
    // Saturating: the figures only serve the message.
    for (const PlacementUnit& unit : units) total = AddBytes(total, unit.bytes);
    for (int d = 0; d < num_devices; ++d) capacity = AddBytes(capacity, ledger.capacity(d));
    return absl::FailedPreconditionError(
        absl::StrCat("task is infeasible for exhaustive: no table-wise placement of the ",
                     task.tables.size(), " tables (", FormatGiB(total),
                     " in all) fits the devices' memory (", FormatGiB(capacity), " in all)"));
  }
  Plan plan = UnitPlan(task, units, device_of_unit);
  plan.stats.candidates_evaluated = leaves;
  plan.stats.cost_model_calls = leaves * (num_devices + 2);
  return plan;
}

}  // namespace shardplan
