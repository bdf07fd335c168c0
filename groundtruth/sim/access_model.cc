#include "groundtruth/sim/access_model.h"

#include <algorithm>
#include <cmath>

namespace shardplan {

std::vector<AccessClass> AccessClasses(const Table& table, double lookups) {
  std::vector<AccessClass> classes;
  if (lookups <= 0.0) return classes;
  const double rows = std::max<double>(1.0, static_cast<double>(table.rows));

  double weight = 0.0;
  double weighted_count = 0.0;
  if (table.access_bins.size() == static_cast<size_t>(kNumAccessBins)) {
    for (int j = 0; j < kNumAccessBins; ++j) {
      const double share = std::max(0.0, table.access_bins[j]);
      weight += share;
      weighted_count += share * BinAccessCount(j);
    }
  }
  if (weight <= 0.0) {
    // No histogram: uniform lookups, the expected number of distinct rows touched.
    const double distinct = std::max(1.0, rows * -std::expm1(-lookups / rows));
    classes.push_back({distinct, lookups / distinct});
    return classes;
  }

  const double mean_count = weighted_count / weight;
  const double distinct =
      std::clamp(lookups / mean_count, 1.0, std::max(1.0, std::min(rows, lookups)));
  // Rescale so the classes account for exactly `lookups` accesses (scale > 1 when capped).
  const double scale = lookups / (distinct * mean_count);
  for (int j = kNumAccessBins - 1; j >= 0; --j) {
    const double share = std::max(0.0, table.access_bins[j]) / weight;
    if (share <= 0.0) continue;
    classes.push_back({distinct * share, BinAccessCount(j) * scale});
  }
  return classes;
}

}  // namespace shardplan
