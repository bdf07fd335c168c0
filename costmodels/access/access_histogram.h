#ifndef SHARDPLAN_COSTMODELS_ACCESS_ACCESS_HISTOGRAM_H_
#define SHARDPLAN_COSTMODELS_ACCESS_ACCESS_HISTOGRAM_H_

// The 17-bin access histogram of a table (docs/design.md section 7.1), from one batch's
// lookups: what the neural models read as a table's access pattern.

#include <cstdint>
#include <span>
#include <vector>

namespace shardplan {

// The access-bin index (0..16) of a row accessed `count` >= 1 times in one batch:
// bin j <= 15 holds counts in (2^(j-1), 2^j] ((0, 1] for j = 0), bin 16 counts > 32768.
int AccessBinOf(int64_t count);

// The 17 access bins of one batch's lookups, exactly as NeuroShard's gen_dlrm_data.py computes
// them: the fraction of distinct accessed rows per access-count bin; all zeros when `indices`
// is empty. Order of `indices` does not matter.
std::vector<double> ComputeAccessBins(std::span<const int64_t> indices);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ACCESS_ACCESS_HISTOGRAM_H_
