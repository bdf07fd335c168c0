#ifndef SHARDPLAN_PLANNER_BASELINES_PLACEMENT_UNITS_H_
#define SHARDPLAN_PLANNER_BASELINES_PLACEMENT_UNITS_H_

// What the table-wise baselines share: tables grouped into units that move together
// (a colocation group is one unit), device memory bookkeeping, and the infeasibility errors.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/cost_model.h"
#include "planner/plan.h"
#include "planner/stop_signal.h"
#include "planner/task.h"

namespace shardplan {

// One table, or a colocation group, placed whole on one device.
struct PlacementUnit {
  std::vector<int> tables;  // task.tables indices, ascending
  int index = 0;            // tables.front(): ranks units as the reference ranks tables
  int64_t bytes = 0;        // memory of all its tables
  std::optional<int32_t> pinned_device;

  // 'table "t7"' or 'colocation group ["a", "b"]', for error messages.
  std::string Describe(const Task& task) const;
};

// The task's tables as units sorted by index. FAILED_PRECONDITION when a table does not allow
// TABLE_WISE (naming the table and `algorithm`); INVALID_ARGUMENT for colocation groups that
// ValidateTask rejects (unknown tables, conflicting pins). Tables named by two groups join one
// unit.
absl::StatusOr<std::vector<PlacementUnit>> TableWiseUnits(const Task& task,
                                                          absl::string_view algorithm);

// The same without the TABLE_WISE check, for planners that also cut tables: a unit of several
// tables, or a pinned one, must still land whole on one device.
absl::StatusOr<std::vector<PlacementUnit>> PlacementUnits(const Task& task);

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

// Puts every pinned unit on its device (device_of_unit[u], ledger) in index order and returns
// the indices of the other units, ascending. FAILED_PRECONDITION (PinnedDoesNotFit) for the
// first pinned unit that does not fit its device, unless `check_memory` is false.
absl::StatusOr<std::vector<size_t>> PlacePinnedUnits(absl::string_view algorithm, const Task& task,
                                                     const std::vector<PlacementUnit>& units,
                                                     bool check_memory, MemoryLedger& ledger,
                                                     std::vector<int32_t>& device_of_unit);

// The table-wise plan that puts every table of unit u on device_of_unit[u].
Plan UnitPlan(const Task& task, const std::vector<PlacementUnit>& units,
              const std::vector<int32_t>& device_of_unit);

// The cost model's view of every table of `unit` (whole tables).
std::vector<ShardView> UnitShards(const Task& task, const PlacementUnit& unit);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_BASELINES_PLACEMENT_UNITS_H_
