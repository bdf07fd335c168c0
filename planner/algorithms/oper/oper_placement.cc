#include "planner/algorithms/oper/oper_placement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "planner/domain/memory.h"

namespace shardplan::oper {
namespace {

// Partitions in the order a greedy pass takes them: by `key` descending, ties by table and rank
// (the partition order).
template <typename Key>
std::vector<int32_t> Descending(const std::vector<Partition>& partitions,
                                const std::vector<int32_t>& which, Key key) {
  std::vector<int32_t> order = which;
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return key(partitions[a]) > key(partitions[b]); });
  return order;
}

}  // namespace

double LookupBytes(const Partition& partition, int num_devices) {
  return partition.lookups * static_cast<double>(partition.fetch_bytes) * num_devices;
}

absl::StatusOr<Placement> PlacePartitions(const std::vector<PartitionTable>& tables,
                                          const std::vector<Partition>& partitions,
                                          const std::vector<int64_t>& capacities,
                                          PlacementRule rule) {
  const int devices = static_cast<int>(capacities.size());
  Placement placement{.owner = std::vector<int32_t>(partitions.size(), -1),
                      .lookup_bytes = std::vector<double>(devices, 0.0),
                      .memory_bytes = std::vector<int64_t>(devices, 0)};
  std::vector<int32_t> access_bounded;
  std::vector<int32_t> memory_bounded;
  for (int32_t p = 0; p < static_cast<int32_t>(partitions.size()); ++p) {
    const bool by_access =
        rule == PlacementRule::kAccessGreedy ||
        (rule == PlacementRule::kOper && partitions[p].bound == PartitionBound::kAccess);
    (by_access ? access_bounded : memory_bounded).push_back(p);
  }
  const auto hotter = [&](const Partition& partition) { return LookupBytes(partition, 1); };
  const auto larger = [](const Partition& partition) { return partition.bytes; };

  // Places `order` one by one on the device with the least `load`, skipping full ones.
  const auto place = [&](const std::vector<int32_t>& order, auto load) -> absl::Status {
    for (int32_t p : order) {
      const Partition& partition = partitions[p];
      int best = -1;
      for (int d = 0; d < devices; ++d) {
        if (partition.bytes > capacities[d] - placement.memory_bytes[d]) continue;
        if (best < 0 || load(d) < load(best)) best = d;
      }
      if (best < 0) {
        int64_t most_free = 0;
        for (int d = 0; d < devices; ++d) {
          most_free = std::max(most_free, capacities[d] - placement.memory_bytes[d]);
        }
        return absl::FailedPreconditionError(absl::StrCat(
            "table \"", tables[partition.table].table->name, "\"'s partition of ranks [",
            partition.rank_begin, ", ", partition.rank_end, ") needs ", FormatGiB(partition.bytes),
            " (", partition.bytes, " bytes), but the most free memory on any device is ",
            FormatGiB(most_free), " (", most_free, " bytes)"));
      }
      placement.owner[p] = best;
      placement.lookup_bytes[best] += LookupBytes(partition, devices);
      placement.memory_bytes[best] += partition.bytes;
    }
    return absl::OkStatus();
  };
  const auto least_lookups = [&](int d) { return placement.lookup_bytes[d]; };
  const auto least_memory = [&](int d) { return placement.memory_bytes[d]; };
  absl::Status placed = place(Descending(partitions, access_bounded, hotter), least_lookups);
  if (!placed.ok()) return placed;
  placed = place(Descending(partitions, memory_bounded, larger), least_memory);
  if (!placed.ok()) return placed;
  return placement;
}

}  // namespace shardplan::oper
