#ifndef SHARDPLAN_PLANNER_DOMAIN_TABLE_ACCESS_H_
#define SHARDPLAN_PLANNER_DOMAIN_TABLE_ACCESS_H_

// A table's rank-frequency curve, from what the table says of its access: its profile
// (explicit or parametric), else its 17-bin histogram as a staircase, else uniform.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "planner/domain/rank_frequency.h"
#include "planner/domain/table.h"

namespace shardplan {

// The curve of `table` for a global batch of `batch_size` (the histogram's staircase depends on
// the batch's lookups: distinct rows = pooling_factor * batch / mean count, capped at the rows,
// as the simulator's access classes; rows no batch touches serve nothing).
RankFrequencyCurve CurveOf(const Table& table, int64_t batch_size);

// The share of the table's lookups that rows [row_offset, row_offset + rows) serve, when the
// table's profile says its row ids are ranks (AccessProfile::rows_in_rank_order); nullopt
// otherwise (rows then stand for a uniform share, as before profiles).
std::optional<double> RankOrderedShare(const Table& table, int64_t row_offset, int64_t rows);

// The 17-bin access histogram (fractions of the distinct rows a batch of `batch_size` touches,
// per access class) of ranks [begin, end) of the table's profile curve; the table's own bins
// when it has no profile, or when no lookup touches the range. What the simulator's kernels
// and, for a profiled table sent without a histogram, the learned models read.
std::vector<double> AccessBinsOfRanks(const Table& table, int64_t begin, int64_t end,
                                      int64_t batch_size);

// OK, or INVALID_ARGUMENT "<path>.<field>: <reason>" for the first field of `table`'s access
// profile that is wrong (e.g. "tables[2].access_profile.top_k.top_counts[3]: ...").
absl::Status ValidateAccessProfile(const Table& table, const std::string& path);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TABLE_ACCESS_H_
