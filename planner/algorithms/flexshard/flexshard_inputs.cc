#include "planner/algorithms/flexshard/flexshard_inputs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "planner/domain/table_access.h"

namespace shardplan::flexshard {

absl::StatusOr<TaskTierInputs> TierInputsOf(const Task& task) {
  const Topology& topology = task.topology;
  const int per_host = topology.local_world_size();
  if (topology.num_devices() % per_host != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "topology.devices_per_host: FlexShard's Flex tier needs every host full (", per_host,
        " devices each), but ", topology.num_devices(), " devices leave the last host short"));
  }
  TaskTierInputs out;
  out.curves.reserve(task.tables.size());  // TierTable points into it
  for (const Table& table : task.tables) out.curves.push_back(CurveOf(table, task.batch_size));
  TierInputs& in = out.inputs;
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    in.tables.push_back({.name = table.name,
                         .curve = &out.curves[t],
                         .lookups_per_sample = table.pooling_factor,
                         .dim = table.dim,
                         .element_bytes = ElementBytes(table.element_type)});
  }
  in.hosts = topology.num_hosts();
  in.devices_per_host = per_host;
  in.local_batch = LocalBatchSize(task);
  in.objective = task.objective;
  const int64_t smallest =
      topology.memory_bytes.empty()
          ? 0
          : *std::min_element(topology.memory_bytes.begin(), topology.memory_bytes.end());
  in.memory_budget_bytes = task.replication_budget.BytesOn(smallest);
  in.bandwidths = {.all_to_all_global_gibps = topology.single_host()
                                                  ? topology.intra_host_bandwidth_gibps
                                                  : topology.inter_host_bandwidth_gibps,
                   .all_to_all_intra_gibps = topology.intra_host_bandwidth_gibps,
                   .all_reduce_global_gibps = topology.all_reduce_bandwidth(),
                   .all_reduce_cross_gibps = topology.all_reduce_bandwidth()};
  return out;
}

}  // namespace shardplan::flexshard
