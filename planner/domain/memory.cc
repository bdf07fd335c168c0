#include "planner/domain/memory.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace shardplan {
namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();

// weights x factor rounded up, saturating.
int64_t ScaledBytes(int64_t weights, double factor) {
  if (factor == 1.0) return weights;
  const long double scaled = static_cast<long double>(weights) * factor;
  if (!(scaled < static_cast<long double>(kMaxBytes))) return scaled > 0 ? kMaxBytes : 0;
  if (scaled <= 0) return 0;
  // Round up, but treat products within 1e-12 (relative) of an integer as that integer, so that
  // binary noise in a multiplier such as 0.1 does not add a byte.
  const long double nearest = std::nearbyint(scaled);
  if (std::fabs(scaled - nearest) <= scaled * 1e-12L) return static_cast<int64_t>(nearest);
  return static_cast<int64_t>(std::ceil(scaled));
}

// TorchRec's optimizer_size: ceil(weights x m) (shard_estimators.py::_get_optimizer_multipler).
int64_t OptimizerStateBytes(Optimizer optimizer, int64_t weights, int32_t table_dim) {
  switch (optimizer) {
    case Optimizer::kUnspecified:
    case Optimizer::kSgd:
      return 0;
    case Optimizer::kAdam:
      return ScaledBytes(weights, 2.0);
    case Optimizer::kRowwiseAdagrad:  // m = 1 / dim: exact in integers
      return table_dim > 0 ? (weights + table_dim - 1) / table_dim : 0;
    case Optimizer::kOther:
      return weights;
  }
  return 0;
}

}  // namespace

ShardMemory ShardMemoryParts(const Table& table, int64_t rows, int32_t columns,
                             const MemoryOptions& options) {
  ShardMemory memory;
  if (rows <= 0 || columns <= 0) return memory;
  int64_t weights = 0;
  // Saturate instead of wrapping: an absurd shard must still read as "does not fit".
  if (__builtin_mul_overflow(rows, int64_t{columns}, &weights) ||
      __builtin_mul_overflow(weights, int64_t{ElementBytes(table.element_type)}, &weights)) {
    memory.weights = kMaxBytes;
    return memory;
  }
  const double factor = 1.0 + options.optimizer_state_multiplier + options.io_buffer_multiplier;
  // Scaled as one product, as before the split, so that the total keeps its rounding.
  memory.weights = weights;
  memory.multiplied = ScaledBytes(weights, factor) - weights;
  memory.optimizer_state = OptimizerStateBytes(options.optimizer, weights, table.dim);
  return memory;
}

int64_t ShardMemory::total() const {
  return AddBytes(AddBytes(weights, multiplied), optimizer_state);
}

int64_t ShardMemoryBytes(const Table& table, int64_t rows, int32_t columns,
                         const MemoryOptions& options) {
  return ShardMemoryParts(table, rows, columns, options).total();
}

std::optional<ReservationShortfall> TorchRecReservationShortfall(
    const Task& task, const std::vector<DeviceCost>& devices) {
  if (task.memory.storage_reservation > 0) return std::nullopt;
  std::optional<ReservationShortfall> worst;
  for (const DeviceCost& device : devices) {
    const int64_t capacity = device.memory_capacity_bytes;
    const auto usable = static_cast<int64_t>(
        std::floor((1.0 - kTorchRecStorageReservation) * static_cast<double>(capacity)));
    const int64_t over = device.memory_bytes - usable;
    if (over <= 0 || device.memory_bytes > capacity) continue;
    if (!worst.has_value() || over > worst->bytes - worst->usable_bytes) {
      worst = ReservationShortfall{.device = device.device,
                                   .bytes = device.memory_bytes,
                                   .capacity_bytes = capacity,
                                   .usable_bytes = usable};
    }
  }
  return worst;
}

int64_t TableMemoryBytes(const Table& table, const MemoryOptions& options) {
  return ShardMemoryBytes(table, table.rows, table.dim, options);
}

int64_t AddBytes(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kMaxBytes : sum;
}

std::string FormatGiB(int64_t bytes) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(bytes) / kBytesPerGiB);
}

}  // namespace shardplan
