#include "planner/domain/plan_memory.h"

#include "planner/domain/routed_layout_queries.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/table_access.h"
#include "planner/domain/traffic_matrix.h"

namespace shardplan {
namespace {

// DeviceMemory::sequence_buffer_bytes of one SEQUENCE table's layout, added to `devices`.
void AddSequenceBuffers(const Task& task, const Table& table, const TableSharding& sharding,
                        const TableLayout& layout, std::vector<DeviceMemory>& devices) {
  const RankFrequencyCurve curve = CurveOf(table, task.batch_size);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, task.topology);
  const double requester_batch = static_cast<double>(LocalBatchSize(task));
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    const RowGroup& group = layout.groups[g];
    const double share =
        AccessOfRows(table, sharding, curve, group.row_offset, group.row_offset + group.row_count)
            .share;
    const int64_t bytes = static_cast<int64_t>(
        OutputBytesPerRequester(table, group.column_count, share, requester_batch));
    for (size_t requester = 0; requester < serving[g].size(); ++requester) {
      const int32_t device = sharding.shards[serving[g][requester]].device;
      if (group.replicas() > 1 && device == static_cast<int32_t>(requester)) continue;
      devices[device].sequence_buffer_bytes =
          AddBytes(devices[device].sequence_buffer_bytes, bytes);
      devices[requester].sequence_buffer_bytes =
          AddBytes(devices[requester].sequence_buffer_bytes, bytes);
    }
  }
}

}  // namespace

double PlanMemory::ReplicatedMemoryMultiplier() const {
  return unique_bytes > 0 ? static_cast<double>(bytes) / static_cast<double>(unique_bytes) : 1.0;
}

absl::StatusOr<PlanMemory> PlanMemoryOf(const Task& task, const Plan& plan) {
  absl::StatusOr<std::vector<const Table*>> tables = TablesOfPlan(task, plan);
  if (!tables.ok()) return tables.status();
  PlanMemory memory;
  memory.devices.resize(static_cast<size_t>(task.topology.num_devices()));
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const TableSharding& sharding = plan.tables[k];
    const Table& table = *(*tables)[k];
    const TableLayout layout = LayoutOf(table, sharding);
    TableMemory& table_memory = memory.tables.emplace_back();
    table_memory.table = table.name;
    for (const RowGroup& group : layout.groups) {
      const ShardMemory parts =
          ShardMemoryParts(table, group.row_count, group.column_count, task.memory);
      const int64_t bytes = parts.total();
      table_memory.unique_bytes = AddBytes(table_memory.unique_bytes, bytes);
      for (int32_t i = 0; i < group.replicas(); ++i) {
        DeviceMemory& on = memory.devices[group.devices[i]];
        on.parts.weights = AddBytes(on.parts.weights, parts.weights);
        on.parts.multiplied = AddBytes(on.parts.multiplied, parts.multiplied);
        on.parts.optimizer_state = AddBytes(on.parts.optimizer_state, parts.optimizer_state);
        on.bytes = AddBytes(on.bytes, bytes);
        if (group.replicas() > 1) on.replicated_bytes = AddBytes(on.replicated_bytes, bytes);
        on.shards += 1;
        table_memory.bytes = AddBytes(table_memory.bytes, bytes);
      }
    }
    if (table.pooling == Pooling::kSequence) {
      AddSequenceBuffers(task, table, sharding, layout, memory.devices);
    }
    memory.unique_bytes = AddBytes(memory.unique_bytes, table_memory.unique_bytes);
    memory.bytes = AddBytes(memory.bytes, table_memory.bytes);
  }
  return memory;
}

}  // namespace shardplan
