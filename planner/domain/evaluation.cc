#include "planner/domain/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "planner/domain/memory.h"

namespace shardplan {
namespace {

// A model that answers fewer values than devices breaks its contract; NaN makes that visible
// in the cost instead of reading past the end.
std::vector<double> PerDevice(std::vector<double> values, size_t num_devices) {
  values.resize(num_devices, std::numeric_limits<double>::quiet_NaN());
  return values;
}

}  // namespace

PlacementCost CostOfPlacement(const CostModel& model, const CostContext& context,
                              const std::vector<std::vector<ShardView>>& shards_per_device) {
  const size_t n = shards_per_device.size();
  PlacementCost cost;
  cost.compute_ms.resize(n);
  std::vector<int64_t> dim_sums(n, 0);
  for (size_t d = 0; d < n; ++d) {
    // Every device is costed, empty ones too: a model may charge a fixed kernel overhead.
    cost.compute_ms[d] = model.ComputeCost(context, shards_per_device[d]);
    for (const ShardView& shard : shards_per_device[d]) dim_sums[d] += shard.columns;
  }
  cost.backward_comm_ms = PerDevice(model.BackwardCommCosts(context, dim_sums), n);

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

absl::Status EvaluatePlan(const Task& task, const CostModel& model, Plan& plan) {
  const int num_devices = task.topology.num_devices();
  std::unordered_map<std::string_view, const Table*> table_of;
  for (const Table& table : task.tables) table_of.emplace(table.name, &table);

  std::vector<std::vector<ShardView>> shards_per_device(static_cast<size_t>(num_devices));
  std::vector<DeviceCost> devices(static_cast<size_t>(num_devices));
  for (int d = 0; d < num_devices; ++d) {
    devices[d].device = d;
    devices[d].memory_capacity_bytes = task.topology.memory_bytes[d];
  }
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const TableSharding& sharding = plan.tables[k];
    auto it = table_of.find(sharding.table);
    if (it == table_of.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", k, "].table: unknown table \"", sharding.table, "\""));
    }
    const Table& table = *it->second;
    for (size_t s = 0; s < sharding.shards.size(); ++s) {
      const Shard& shard = sharding.shards[s];
      // Formatted only for an error: this loop runs over every shard of every plan.
      auto path = [&] { return absl::StrCat("tables[", k, "].shards[", s, "]"); };
      if (shard.device < 0 || shard.device >= num_devices) {
        return absl::InvalidArgumentError(absl::StrCat(path(), ".device: device ", shard.device,
                                                       " does not exist (topology.num_devices is ",
                                                       num_devices, ")"));
      }
      if (shard.row_count < 0 || shard.row_count > table.rows || shard.column_count < 0 ||
          shard.column_count > table.dim) {
        return absl::InvalidArgumentError(absl::StrCat(
            path(), ": a shard of ", shard.row_count, " x ", shard.column_count,
            " does not fit table \"", table.name, "\" (", table.rows, " x ", table.dim, ")"));
      }
      shards_per_device[shard.device].push_back(
          ShardView{.table = &table, .rows = shard.row_count, .columns = shard.column_count});
      DeviceCost& device = devices[shard.device];
      device.memory_bytes =
          AddBytes(device.memory_bytes,
                   ShardMemoryBytes(table, shard.row_count, shard.column_count, task.memory));
      device.dim_sum += shard.column_count;
      device.num_shards += 1;
    }
  }

  const PlacementCost cost = CostOfPlacement(model, CostContext::For(task), shards_per_device);
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
  return absl::OkStatus();
}

}  // namespace shardplan
