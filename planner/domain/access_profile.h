#ifndef SHARDPLAN_PLANNER_DOMAIN_ACCESS_PROFILE_H_
#define SHARDPLAN_PLANNER_DOMAIN_ACCESS_PROFILE_H_

// A table's per-row access profile (proto: Table.access_profile): how its lookups spread over
// its rows by rank (rank 0 = the hottest row). Either explicit (the top K ranks' counts and the
// tail) or parametric (a Zipf head over a uniform floor over the active rows). The client owns
// the rank -> id map: the profile speaks of ranks; rows_in_rank_order says the client renumbered
// its ids so that row id r is rank r, which is what lets a row range be read as a rank range.

#include <cstdint>
#include <optional>
#include <vector>

namespace shardplan {

// The top K ranks' lookup counts (any unit: counts in a sample of batches, or shares), hottest
// first, and the lookups of every other row together, spread evenly over `tail_rows` rows.
struct TopKAccessProfile {
  std::vector<double> top_counts;  // non-increasing, >= 0
  double tail_count = 0.0;         // >= 0; no larger per row than the last top count
  int64_t tail_rows = 0;           // 0: every row past the top K
  // Empty, or top_ids[r] = the client's id of rank r (distinct, in [0, rows)): what a plan's
  // hot_row_ids are read from (planner/domain/hot_row_ids.h).
  std::vector<int64_t> top_ids;
};

// Rank r < active_rows serves (1 - uniform_share) * Zipf(exponent) + uniform_share / active_rows.
struct ZipfAccessProfile {
  double exponent = 0.0;       // in [0, 3] (kMaxProfileZipfExponent)
  double uniform_share = 0.0;  // in [0, 1]
  int64_t active_rows = 0;     // 0: every row
};

struct AccessProfile {
  std::optional<TopKAccessProfile> top_k;  // at most one of top_k and zipf
  std::optional<ZipfAccessProfile> zipf;
  bool rows_in_rank_order = false;  // row id r is rank r (the client renumbered its ids)

  bool has_curve() const { return top_k.has_value() || zipf.has_value(); }
};

inline constexpr double kMaxProfileZipfExponent = 3.0;

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_ACCESS_PROFILE_H_
