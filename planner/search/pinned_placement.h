#ifndef SHARDPLAN_PLANNER_SEARCH_PINNED_PLACEMENT_H_
#define SHARDPLAN_PLANNER_SEARCH_PINNED_PLACEMENT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/domain/task.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/placement_units.h"

namespace shardplan {

// Puts every pinned unit on its device (device_of_unit[u], ledger) in index order and returns
// the indices of the other units, ascending. FAILED_PRECONDITION (PinnedDoesNotFit) for the
// first pinned unit that does not fit its device, unless `check_memory` is false.
absl::StatusOr<std::vector<size_t>> PlacePinnedUnits(absl::string_view algorithm, const Task& task,
                                                     const std::vector<PlacementUnit>& units,
                                                     bool check_memory, MemoryLedger& ledger,
                                                     std::vector<int32_t>& device_of_unit);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_PINNED_PLACEMENT_H_
