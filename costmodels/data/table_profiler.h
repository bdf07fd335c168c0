#ifndef SHARDPLAN_COSTMODELS_DATA_TABLE_PROFILER_H_
#define SHARDPLAN_COSTMODELS_DATA_TABLE_PROFILER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/table.h"

namespace shardplan {

// The reference clamps inferred hash sizes to at least this many rows (gen_dlrm_data.py).
inline constexpr int64_t kMinProfiledRows = 100;

// The access-bin index (0..16) of a row accessed `count` >= 1 times in one batch:
// bin j <= 15 holds counts in (2^(j-1), 2^j] ((0, 1] for j = 0), bin 16 counts > 32768.
int AccessBinOf(int64_t count);

// The 17 access bins of one batch's lookups, exactly as NeuroShard's gen_dlrm_data.py computes
// them: the fraction of distinct accessed rows per access-count bin; all zeros when `indices`
// is empty. Order of `indices` does not matter.
std::vector<double> ComputeAccessBins(std::span<const int64_t> indices);

// One table's statistics from one batch of lookups in FBGEMM's layout: sample b looks up
// indices[offsets[b] .. offsets[b+1]). rows = max(kMinProfiledRows, max index + 1) (1 before the
// clamp for an empty table), pooling_factor = mean bag length, access_bins as above; dim 0.
// INVALID_ARGUMENT (naming the field) unless offsets has >= 2 entries, starts at 0, never
// decreases and ends at indices.size(), and every index is >= 0.
absl::StatusOr<Table> ProfileTable(const std::string& name, std::span<const int64_t> offsets,
                                   std::span<const int64_t> indices);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_DATA_TABLE_PROFILER_H_
