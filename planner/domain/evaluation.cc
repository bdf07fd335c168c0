#include "planner/domain/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan_memory.h"
#include "planner/domain/row_layout.h"

namespace shardplan {
namespace {

// A model that answers fewer values than devices breaks its contract; NaN makes that visible
// in the cost instead of reading past the end.
std::vector<double> PerDevice(std::vector<double> values, size_t num_devices) {
  values.resize(num_devices, std::numeric_limits<double>::quiet_NaN());
  return values;
}

// The reference formula over dim sums, with the collectives' terms added to the comm terms.
PlacementCost Cost(const CostModel& model, const CostContext& context,
                   const std::vector<std::vector<ShardView>>& shards_per_device,
                   std::span<const int64_t> dim_sums,
                   std::span<const CollectiveDemand> collectives) {
  const size_t n = shards_per_device.size();
  PlacementCost cost;
  cost.compute_ms.resize(n);
  for (size_t d = 0; d < n; ++d) {
    // Every device is costed, empty ones too: a model may charge a fixed kernel overhead.
    cost.compute_ms[d] = model.ComputeCost(context, shards_per_device[d]);
  }
  // Inference runs no backward pass: no backward all-to-all (and DescribePlacement drops the
  // backward collectives).
  cost.backward_comm_ms = context.objective == Objective::kInference
                              ? std::vector<double>(n, 0.0)
                              : PerDevice(model.BackwardCommCosts(context, dim_sums), n);
  CollectiveCosts collective_costs;
  if (!collectives.empty()) {
    collective_costs = model.CostCollectives(context, collectives);
    collective_costs.forward_ms = PerDevice(std::move(collective_costs.forward_ms), n);
    collective_costs.backward_ms = PerDevice(std::move(collective_costs.backward_ms), n);
    for (size_t d = 0; d < n; ++d) cost.backward_comm_ms[d] += collective_costs.backward_ms[d];
  }

  // A device waits at the forward all-to-all for the slowest one to finish its backward pass.
  std::vector<double> waits(n, 0.0);
  double earliest = std::numeric_limits<double>::infinity();
  for (size_t d = 0; d < n; ++d) {
    earliest = std::min(earliest, cost.compute_ms[d] + cost.backward_comm_ms[d]);
  }
  for (size_t d = 0; d < n; ++d) {
    waits[d] = cost.compute_ms[d] + cost.backward_comm_ms[d] - earliest;
  }
  cost.forward_comm_ms = PerDevice(model.ForwardCommCosts(context, dim_sums, waits), n);
  if (!collectives.empty()) {
    for (size_t d = 0; d < n; ++d) cost.forward_comm_ms[d] += collective_costs.forward_ms[d];
  }

  cost.total_ms.resize(n);
  for (size_t d = 0; d < n; ++d) {
    cost.total_ms[d] = cost.compute_ms[d] + cost.backward_comm_ms[d] + cost.forward_comm_ms[d];
    // The lowest index among equal maxima; a NaN total (a broken model) wins over any number
    // so that it cannot hide behind a costlier device.
    if (d == 0) {
      cost.cost_ms = cost.total_ms[0];
    } else if (!std::isnan(cost.cost_ms) &&
               (std::isnan(cost.total_ms[d]) || cost.total_ms[d] > cost.cost_ms)) {
      cost.cost_ms = cost.total_ms[d];
      cost.bottleneck_device = static_cast<int>(d);
    }
  }
  return cost;
}

// FAILED_PRECONDITION for the first table whose sharding type `model` does not cost.
absl::Status CheckCostsShardingTypes(const Plan& plan, const CostModel& model) {
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const ShardingType type = plan.tables[k].sharding_type;
    if (!model.CostsShardingType(type)) {
      std::vector<std::string> costed;
      for (ShardingType candidate :
           {ShardingType::kTableWise, ShardingType::kColumnWise, ShardingType::kRowWise,
            ShardingType::kTableRowWise, ShardingType::kDataParallel}) {
        if (model.CostsShardingType(candidate)) costed.push_back(ShardingTypeName(candidate));
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "tables[", k, "].sharding_type: cost model ", model.id(), " cannot cost ",
          ShardingTypeName(type), " shards (table \"", plan.tables[k].table, "\"); it costs ",
          absl::StrJoin(costed, ", ")));
    }
  }
  return absl::OkStatus();
}

// FAILED_PRECONDITION for plan table `k`, whose layout (of `table`) is routed (replicated row
// groups, a data-parallel table on some devices, explicit routes), under a `model` that does
// not cost routed layouts (docs/cost-models.md, "Routed layouts").
absl::Status RoutedLayoutRefusal(const Table& table, const Plan& plan, size_t k, int num_devices,
                                 const CostModel& model) {
  const TableSharding& sharding = plan.tables[k];
  const TableLayout layout = LayoutOf(table, sharding);
  return absl::FailedPreconditionError(absl::StrCat(
      "tables[", k, "]: cost model ", model.id(), " cannot cost the row layout of table \"",
      sharding.table, "\" (", ShardingTypeName(sharding.sharding_type),
      layout.Replicated() && sharding.sharding_type != ShardingType::kDataParallel
          ? " with replicated row groups"
          : "",
      sharding.sharding_type == ShardingType::kDataParallel && layout.groups.size() == 1 &&
              layout.groups[0].replicas() != num_devices
          ? absl::StrCat(" on ", layout.groups[0].replicas(), " of ", num_devices, " devices")
          : "",
      sharding.routes.empty() ? "" : " with explicit routes",
      "): it was not trained on routed replicas; analytic@1 and the simulator cost them"));
}

// The same for the first routed table DescribePlacement found.
absl::Status CheckCostsRoutedLayouts(const Task& task, const Plan& plan,
                                     const PlacementQueries& queries, const CostModel& model) {
  if (queries.routed_tables.empty() || model.CostsRowLayouts()) return absl::OkStatus();
  const size_t k = static_cast<size_t>(queries.routed_tables.front());
  const auto table = std::find_if(task.tables.begin(), task.tables.end(),
                                  [&](const Table& t) { return t.name == plan.tables[k].table; });
  return RoutedLayoutRefusal(*table, plan, k, task.topology.num_devices(), model);
}

}  // namespace

absl::Status CheckModelCostsPlan(const Task& task, const Plan& plan, const CostModel& model) {
  SHARDPLAN_RETURN_IF_ERROR(CheckCostsShardingTypes(plan, model));
  if (model.CostsRowLayouts()) return absl::OkStatus();
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<const Table*> tables, TablesOfPlan(task, plan));
  const int num_devices = task.topology.num_devices();
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    if (!IsClassicLayout(LayoutOf(*tables[k], plan.tables[k]), num_devices)) {
      return RoutedLayoutRefusal(*tables[k], plan, k, num_devices, model);
    }
  }
  return absl::OkStatus();
}

PlacementCost CostOfPlacement(const CostModel& model, const CostContext& context,
                              const std::vector<std::vector<ShardView>>& shards_per_device) {
  std::vector<int64_t> dim_sums(shards_per_device.size(), 0);
  for (size_t d = 0; d < shards_per_device.size(); ++d) {
    for (const ShardView& shard : shards_per_device[d]) {
      if (IsColumnLevel(shard.sharding)) dim_sums[d] += AllToAllColumns(*shard.table, shard.columns);
    }
  }
  return Cost(model, context, shards_per_device, dim_sums, {});
}

PlacementCost CostOfDescribedPlacement(const CostModel& model, const CostContext& context,
                                       const PlacementQueries& queries) {
  return Cost(model, context, queries.shards_per_device, queries.dim_sums, queries.collectives);
}

absl::Status EvaluatePlan(const Task& task, const CostModel& model, Plan& plan) {
  const int num_devices = task.topology.num_devices();
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  if (!queries.ok()) return queries.status();
  SHARDPLAN_RETURN_IF_ERROR(CheckCostsShardingTypes(plan, model));
  SHARDPLAN_RETURN_IF_ERROR(CheckCostsRoutedLayouts(task, plan, *queries, model));
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(task, plan);
  if (!memory.ok()) return memory.status();

  std::vector<DeviceCost> devices(static_cast<size_t>(num_devices));
  for (int d = 0; d < num_devices; ++d) {
    devices[d].device = d;
    devices[d].memory_capacity_bytes = task.topology.memory_bytes[d];
    // Every replica and row block counts where it lives (plan_memory.h).
    devices[d].memory_bytes = memory->devices[d].bytes;
    devices[d].sequence_buffer_bytes = memory->devices[d].sequence_buffer_bytes;
    devices[d].num_shards = static_cast<int32_t>(queries->shards_per_device[d].size());
    devices[d].dim_sum = queries->dim_sums[d];
  }

  const PlacementCost cost = CostOfDescribedPlacement(model, CostContext::For(task), *queries);
  for (int d = 0; d < num_devices; ++d) {
    devices[d].compute_ms = cost.compute_ms[d];
    devices[d].backward_comm_ms = cost.backward_comm_ms[d];
    devices[d].forward_comm_ms = cost.forward_comm_ms[d];
    devices[d].total_ms = cost.total_ms[d];
  }
  for (int d = 0; d < num_devices; ++d) {
    if (!std::isfinite(devices[d].total_ms)) {
      return absl::InternalError(absl::StrCat(
          "cost model ", model.id(), " returned a non-finite cost for device ", d, " (compute ",
          devices[d].compute_ms, ", backward ", devices[d].backward_comm_ms, ", forward ",
          devices[d].forward_comm_ms, " ms)"));
    }
  }
  plan.devices = std::move(devices);
  plan.cost_ms = cost.cost_ms;
  plan.bottleneck_device = cost.bottleneck_device;
  plan.cost_model = model.id();
  plan.cost_kind = "simulated";
  plan.local_world_size = task.topology.local_world_size();
  return absl::OkStatus();
}

}  // namespace shardplan
