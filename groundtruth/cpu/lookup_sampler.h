#ifndef SHARDPLAN_GROUNDTRUTH_CPU_LOOKUP_SAMPLER_H_
#define SHARDPLAN_GROUNDTRUTH_CPU_LOOKUP_SAMPLER_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/table.h"

namespace shardplan {

// One table's sampled lookups for a batch: bag b is indices[offsets[b] .. offsets[b + 1]).
// (Not data/lookup_reader.h's TableLookups, which also carries the name: two classes of one
// name in one namespace break the one-definition rule.)
struct SampledLookups {
  std::vector<int64_t> indices;  // row ids in [0, rows)
  std::vector<int64_t> offsets;  // batch_size + 1 entries
};

// Access-count range (lo, hi] of histogram bin j: (0,1], (1,2], (2,4], ..., (16384,32768];
// bin 16 (> 32768) is drawn from (32768, 65536] (the sampler needs a finite range).
struct AccessBinRange {
  int64_t lo = 0;
  int64_t hi = 0;
};
AccessBinRange AccessBinRangeOf(int bin);

// Lookups for `batch_size` samples of `table`, with row ids in [0, rows) (rows may be smaller
// than table.rows when the caller scaled the table down; the access histogram is kept).
//
// Construction (docs/cpu-backend.md): the target is L = round(pooling_factor * batch_size)
// lookups. The distinct accessed rows U are split over the bins in proportion to the histogram
// (n_j = round(bin_j * U)), each row getting an access count drawn uniformly from its bin's
// range; U is the smallest count of distinct rows whose expected total reaches L (capped at
// `rows`). When the drawn total is off L by more than 2% (tiny L, or U capped at rows), counts
// are rescaled to L, so the pooling factor always holds and the histogram holds where the
// batch makes it possible. The multiset is shuffled and split into bags whose lengths are
// multinomial (each lookup lands in a uniformly random sample), mean pooling_factor. A table
// without access bins gets i.i.d. uniform rows. Deterministic given `rng`.
absl::StatusOr<SampledLookups> SampleTableLookups(const Table& table, int64_t rows,
                                                int64_t batch_size, std::mt19937_64& rng);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_CPU_LOOKUP_SAMPLER_H_
