#include "planner/domain/memory.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace shardplan {
namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();

}  // namespace

int64_t ShardMemoryBytes(const Table& table, int64_t rows, int32_t columns,
                         const MemoryOptions& options) {
  if (rows <= 0 || columns <= 0) return 0;
  int64_t weights = 0;
  // Saturate instead of wrapping: an absurd shard must still read as "does not fit".
  if (__builtin_mul_overflow(rows, int64_t{columns}, &weights) ||
      __builtin_mul_overflow(weights, int64_t{ElementBytes(table.element_type)}, &weights)) {
    return kMaxBytes;
  }
  const double factor = 1.0 + options.optimizer_state_multiplier + options.io_buffer_multiplier;
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
