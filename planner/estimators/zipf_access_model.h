#ifndef SHARDPLAN_PLANNER_ESTIMATORS_ZIPF_ACCESS_MODEL_H_
#define SHARDPLAN_PLANNER_ESTIMATORS_ZIPF_ACCESS_MODEL_H_

#include <cstdint>
#include <vector>

namespace shardplan {

// What one batch of `lookups` draws over `rows` rows does to the access histogram, when row r
// (1-based rank) is drawn with probability p_r = uniform_share / rows + (1 - uniform_share) *
// r^-exponent / H (a Zipf head over a uniform floor; H normalises). Row r's access count is
// Poisson(lookups * p_r) (the Poissonised multinomial), so every figure below is an
// expectation, computed by quadrature: ranks 1..kExactHeadRanks exactly, the rest in geometric
// rank buckets. docs/table-pool.md.
struct ZipfAccessStats {
  double distinct_rows = 0.0;           // E[# distinct rows accessed]
  std::vector<double> rows_per_bin;     // E[# distinct rows whose count is in bin j], 17
  std::vector<double> lookups_per_bin;  // E[# lookups landing on rows of bin j], 17
};

inline constexpr int64_t kExactHeadRanks = 256;

// The exponents the access models use.
inline constexpr double kMinZipfExponent = 0.0;
inline constexpr double kMaxZipfExponent = 3.0;

// P(X <= k) for X ~ Poisson(lambda), k >= -1 (0 for k = -1). Exact (regularised incomplete gamma)
// within 12 standard deviations of lambda; 0 or 1 (to below 1e-30) outside.
double PoissonCdf(int64_t k, double lambda);

ZipfAccessStats ExpectedZipfAccess(int64_t rows, int64_t lookups, double exponent,
                                   double uniform_share = 0.0);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ESTIMATORS_ZIPF_ACCESS_MODEL_H_
