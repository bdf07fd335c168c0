#include "bench/oper_tasks.h"

#include <cmath>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"

namespace shardplan::bench {

absl::StatusOr<Task> OperDatasetTask(const DatasetSpec& spec, const OperTaskShape& shape) {
  ZipfTableOptions options;
  options.dim = shape.dim;
  options.min_exponent = shape.zipf_exponent;
  options.max_exponent = shape.zipf_exponent;
  options.batch_size = shape.batch_size;
  SHARDPLAN_ASSIGN_OR_RETURN(DatasetTables tables, MakeDatasetTables(spec, options, /*seed=*/0));
  Task task;
  for (Table& table : tables.tables) {
    // The profile alone: the histogram is then the curve's (planner/domain/table_access.h).
    table.access_bins.clear();
    table.access_profile.zipf = ZipfAccessProfile{.exponent = shape.zipf_exponent};
    task.tables.push_back(std::move(table));
  }
  const int devices = shape.hosts * shape.devices_per_host;
  SHARDPLAN_ASSIGN_OR_RETURN(
      task.topology, MakeTopology(devices, shape.device_memory_gib, {}, shape.devices_per_host,
                                  /*intra_host_bandwidth_gibps=*/0,
                                  /*inter_host_bandwidth_gibps=*/0));
  task.topology.hardware = shape.hardware;
  task.batch_size = shape.batch_size;
  task.objective = shape.objective;
  task.replication_budget.extra_bytes_per_device = static_cast<int64_t>(std::floor(
      shape.extra_memory_share * static_cast<double>(TablesFootprintBytes(task)) / devices));
  SHARDPLAN_RETURN_IF_ERROR(ValidateTask(task));
  return CanonicalTask(std::move(task));
}

int64_t TablesFootprintBytes(const Task& task) {
  int64_t bytes = 0;
  for (const Table& table : task.tables) bytes += TableMemoryBytes(table, task.memory);
  return bytes;
}

}  // namespace shardplan::bench
