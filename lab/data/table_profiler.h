#ifndef SHARDPLAN_LAB_DATA_TABLE_PROFILER_H_
#define SHARDPLAN_LAB_DATA_TABLE_PROFILER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/access/access_histogram.h"  // ComputeAccessBins
#include "planner/domain/table.h"

namespace shardplan {

// The reference clamps inferred hash sizes to at least this many rows (gen_dlrm_data.py).
inline constexpr int64_t kMinProfiledRows = 100;

// One table's statistics from one batch of lookups in FBGEMM's layout: sample b looks up
// indices[offsets[b] .. offsets[b+1]). rows = max(kMinProfiledRows, max index + 1) (1 before the
// clamp for an empty table), pooling_factor = mean bag length, access_bins as above; dim 0.
// INVALID_ARGUMENT (naming the field) unless offsets has >= 2 entries, starts at 0, never
// decreases and ends at indices.size(), and every index is >= 0.
absl::StatusOr<Table> ProfileTable(const std::string& name, std::span<const int64_t> offsets,
                                   std::span<const int64_t> indices);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_DATA_TABLE_PROFILER_H_
