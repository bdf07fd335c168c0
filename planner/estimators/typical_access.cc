#include "planner/estimators/typical_access.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "planner/domain/table.h"
#include "planner/estimators/zipf_access_model.h"

namespace shardplan {

std::vector<double> TypicalAccessBins(int64_t rows, double pooling_factor,
                                      const TypicalAccessParams& params) {
  const double active_fraction = std::pow(10.0, std::min(0.0, params.active_fraction_log10));
  const int64_t active_rows =
      std::max<int64_t>(1, std::llround(active_fraction * static_cast<double>(rows)));
  const int64_t lookups =
      std::llround(std::max(0.0, pooling_factor) * static_cast<double>(params.batch_size));
  const ZipfAccessStats expected = ExpectedZipfAccess(
      active_rows, lookups, std::clamp(params.zipf_exponent, kMinZipfExponent, kMaxZipfExponent),
      std::clamp(params.uniform_share, 0.0, 1.0));
  std::vector<double> bins(kNumAccessBins, 0.0);
  const double distinct =
      std::accumulate(expected.rows_per_bin.begin(), expected.rows_per_bin.end(), 0.0);
  if (!(distinct > 0.0)) {
    bins[0] = 1.0;  // no lookups: every (hypothetical) accessed row is accessed once
    return bins;
  }
  for (int j = 0; j < kNumAccessBins; ++j) bins[j] = expected.rows_per_bin[j] / distinct;
  return bins;
}

}  // namespace shardplan
