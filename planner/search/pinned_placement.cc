#include "planner/search/pinned_placement.h"

namespace shardplan {

absl::StatusOr<std::vector<size_t>> PlacePinnedUnits(absl::string_view algorithm, const Task& task,
                                                     const std::vector<PlacementUnit>& units,
                                                     bool check_memory, MemoryLedger& ledger,
                                                     std::vector<int32_t>& device_of_unit) {
  std::vector<size_t> free_units;
  for (size_t u = 0; u < units.size(); ++u) {
    const PlacementUnit& unit = units[u];
    if (!unit.pinned_device) {
      free_units.push_back(u);
      continue;
    }
    if (check_memory && !ledger.Fits(*unit.pinned_device, unit.bytes)) {
      return ledger.PinnedDoesNotFit(algorithm, task, unit);
    }
    device_of_unit[u] = *unit.pinned_device;
    ledger.Add(*unit.pinned_device, unit.bytes);
  }
  return free_units;
}

}  // namespace shardplan
