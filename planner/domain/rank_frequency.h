#ifndef SHARDPLAN_PLANNER_DOMAIN_RANK_FREQUENCY_H_
#define SHARDPLAN_PLANNER_DOMAIN_RANK_FREQUENCY_H_

// A table's rows ordered by how often they are looked up (rank 0 = the hottest row) and the
// share of the table's lookups each rank serves: the one rank-frequency curve that sharding
// semantics, planners (FlexShard's tiers), the analytic model and the simulator read
// (docs/cost-models.md, "Access profiles"). It lives in the domain because all of them may
// include the domain and none of them may include each other.
//
// The curve knows ranks only. Which row id has which rank is the client's (its rank -> id map);
// a table whose ids are its ranks says so (AccessProfile::rows_in_rank_order).

#include <array>
#include <cstdint>
#include <vector>

#include "planner/domain/table.h"

namespace shardplan {

// Representative access count (per batch) of access-histogram bin `bin` (0..16): 1 for bin 0,
// 0.75 * 2^j (the middle of (2^(j-1), 2^j]) for 1..15, 1.5 * 32768 for 16.
double BinAccessCount(int bin);

// The access-histogram bin (0..16) of a row accessed `count` times per batch (count > 0):
// counts in (2^(j-1), 2^j] are bin j, (0, 1] bin 0, above 32768 bin 16.
int AccessBinOfCount(double count);

class RankFrequencyCurve {
 public:
  // `rows` consecutive ranks that each carry `weight` (any unit: counts or shares).
  struct Step {
    int64_t rows = 0;
    double weight = 0.0;
  };

  // Every one of `rows` ranks serves the same share.
  static RankFrequencyCurve Uniform(int64_t rows);
  // Steps in rank order with non-increasing weights; ranks past the steps serve nothing.
  // Weights are normalised so that the whole curve serves a share of 1 (all zero: uniform).
  static RankFrequencyCurve Staircase(int64_t rows, std::vector<Step> steps);
  // Rank r < active_rows serves (1 - uniform_share) * (r+1)^-exponent / H + uniform_share /
  // active_rows (H normalises the Zipf part over active_rows ranks); ranks past active_rows serve
  // nothing. active_rows 0 or above rows: every row is active.
  static RankFrequencyCurve Zipf(int64_t rows, double exponent, double uniform_share = 0.0,
                                 int64_t active_rows = 0);

  int64_t rows() const { return rows_; }
  // The share of the table's lookups rank `rank` serves (0 outside [0, rows)).
  double ShareOfRank(int64_t rank) const;
  // The share served by ranks [0, rank) (rank clamped to [0, rows]).
  double CumulativeShare(int64_t rank) const;
  // The share served by ranks [begin, end).
  double Share(int64_t begin, int64_t end) const { return CumulativeShare(end) - CumulativeShare(begin); }
  // The fewest hottest ranks that serve at least `share` (rows() when share is not reachable).
  int64_t RowsToCover(double share) const;
  // The expected distinct rows of ranks [begin, end) that one batch of `lookups` lookups touches,
  // by access-histogram bin of their expected count (rank r is touched lookups * share(r) times:
  // bin 0 counts rows touched at least once, 1 - exp(-count), others whole rows). Ranges over
  // a Zipf curve are summed in geometric rank buckets (ratio kBucketGrowth).
  std::array<double, kNumAccessBins> AccessClasses(int64_t begin, int64_t end,
                                                   double lookups) const;

  static constexpr double kBucketGrowth = 1.01;

 private:
  enum class Kind { kStaircase, kZipf };
  double ZipfHarmonic(int64_t n) const;  // sum_{k=1..n} k^-exponent
  double ZipfShare(int64_t rank) const;

  Kind kind_ = Kind::kStaircase;
  int64_t rows_ = 0;
  // Staircase: step boundaries (first rank of each step, then the end) and the cumulative share
  // at each boundary; per-rank share of each step.
  std::vector<int64_t> step_begin_;
  std::vector<double> cumulative_at_step_;
  std::vector<double> step_share_;
  // Zipf.
  double exponent_ = 0.0;
  double uniform_share_ = 0.0;
  int64_t active_rows_ = 0;
  double harmonic_total_ = 1.0;
  std::vector<double> harmonic_head_;  // harmonic_head_[n] = H(n) for n <= kExactHead
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_RANK_FREQUENCY_H_
