#include "planner/search/memory_ledger.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "planner/domain/memory.h"

namespace shardplan {

MemoryLedger::MemoryLedger(const Topology& topology)
    : capacity_(topology.memory_bytes), used_(topology.memory_bytes.size(), 0) {}

void MemoryLedger::Reset(const Topology& topology) {
  capacity_.assign(topology.memory_bytes.begin(), topology.memory_bytes.end());
  used_.assign(topology.memory_bytes.size(), 0);
}

void MemoryLedger::Add(int device, int64_t bytes) {
  used_[device] = AddBytes(used_[device], bytes);
}

absl::Status MemoryLedger::NoDeviceFits(absl::string_view algorithm, const Task& task,
                                        const PlacementUnit& unit) const {
  if (num_devices() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("task is infeasible for ", algorithm, ": there are no devices"));
  }
  int most_free = 0;  // the lowest index among equals
  for (int d = 1; d < num_devices(); ++d) {
    if (capacity_[d] - used_[d] > capacity_[most_free] - used_[most_free]) most_free = d;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("task is infeasible for ", algorithm, ": ", unit.Describe(task), " needs ",
                   FormatGiB(unit.bytes), " but the most free memory on any device is ",
                   FormatGiB(std::max<int64_t>(capacity_[most_free] - used_[most_free], 0)),
                   " (device ", most_free, ", capacity ", FormatGiB(capacity_[most_free]), ")"));
}

absl::Status MemoryLedger::PinnedDoesNotFit(absl::string_view algorithm, const Task& task,
                                            const PlacementUnit& unit) const {
  const int d = *unit.pinned_device;
  return absl::FailedPreconditionError(
      absl::StrCat("task is infeasible for ", algorithm, ": ", unit.Describe(task), " needs ",
                   FormatGiB(unit.bytes), " but its pinned device ", d, " has ",
                   FormatGiB(std::max<int64_t>(capacity_[d] - used_[d], 0)), " free (capacity ",
                   FormatGiB(capacity_[d]), ")"));
}

}  // namespace shardplan
