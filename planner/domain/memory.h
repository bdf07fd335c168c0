#ifndef SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_
#define SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Bytes a shard of `rows` x `columns` of `table` occupies on its device: the weights
// (rows x columns x element bytes, as the reference counts them) scaled by
// 1 + optimizer_state_multiplier + io_buffer_multiplier, rounded up, plus the optimizer's state
// as TorchRec's storage estimator counts it: ceil(weights x m) with m = 0 (SGD), 2 (Adam),
// 1 / table dim (row-wise Adagrad: one value per row; a column shard its share), 1 (other).
int64_t ShardMemoryBytes(const Table& table, int64_t rows, int32_t columns,
                         const MemoryOptions& options);

// The same bytes by what they hold: total() == ShardMemoryBytes, to the byte.
struct ShardMemory {
  int64_t weights = 0;          // rows x columns x element bytes
  int64_t multiplied = 0;       // weights x (optimizer_state_multiplier + io_buffer_multiplier)
  int64_t optimizer_state = 0;  // the optimizer's own state (TorchRec's optimizer_size)
  int64_t total() const;
};
ShardMemory ShardMemoryParts(const Table& table, int64_t rows, int32_t columns,
                             const MemoryOptions& options);

// The whole table on one device.
int64_t TableMemoryBytes(const Table& table, const MemoryOptions& options);

// TorchRec's default storage reservation: HeuristicalStorageReservation(percentage=0.15).
inline constexpr double kTorchRecStorageReservation = 0.15;

// A device whose plan fits `task`'s capacities but not what TorchRec would leave it.
struct ReservationShortfall {
  int device = 0;
  int64_t bytes = 0;           // the plan's bytes on it
  int64_t capacity_bytes = 0;  // its capacity as the task names it
  int64_t usable_bytes = 0;    // what TorchRec's 15% reservation leaves
};

// When `task` reserves nothing, the device of `devices` (a plan's figures) most over
// floor(0.85 x capacity); nullopt when the task reserves storage or every device fits.
std::optional<ReservationShortfall> TorchRecReservationShortfall(
    const Task& task, const std::vector<DeviceCost>& devices);

// a + b for byte counts (>= 0), saturating at the int64 maximum instead of wrapping: an absurd
// total must still read as "does not fit".
int64_t AddBytes(int64_t a, int64_t b);

// "12.34 GiB", for messages.
std::string FormatGiB(int64_t bytes);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_MEMORY_H_
