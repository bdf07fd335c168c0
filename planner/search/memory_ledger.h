#ifndef SHARDPLAN_PLANNER_SEARCH_MEMORY_LEDGER_H_
#define SHARDPLAN_PLANNER_SEARCH_MEMORY_LEDGER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"
#include "planner/search/placement_units.h"

namespace shardplan {

// Memory taken on every device while units are placed.
class MemoryLedger {
 public:
  explicit MemoryLedger(const Topology& topology);
  // Empty again, for `topology`'s devices; keeps the buffers.
  void Reset(const Topology& topology);

  int num_devices() const { return static_cast<int>(capacity_.size()); }
  int64_t used(int device) const { return used_[device]; }
  int64_t capacity(int device) const { return capacity_[device]; }
  bool Fits(int device, int64_t bytes) const { return bytes <= capacity_[device] - used_[device]; }
  void Add(int device, int64_t bytes);
  void Remove(int device, int64_t bytes) { used_[device] -= bytes; }

  // FAILED_PRECONDITION: "task is infeasible for size_greedy: table "t7" needs 5.20 GiB but
  // the most free memory on any device is 3.10 GiB (device 2, capacity 4.00 GiB)".
  absl::Status NoDeviceFits(absl::string_view algorithm, const Task& task,
                            const PlacementUnit& unit) const;
  // FAILED_PRECONDITION for a pinned unit that does not fit its device.
  absl::Status PinnedDoesNotFit(absl::string_view algorithm, const Task& task,
                                const PlacementUnit& unit) const;

 private:
  std::vector<int64_t> capacity_;
  std::vector<int64_t> used_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_MEMORY_LEDGER_H_
