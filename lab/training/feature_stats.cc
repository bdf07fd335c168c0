#include "lab/training/feature_stats.h"

#include <cmath>

namespace shardplan::training {

FeatureStats ComputeFeatureStats(std::span<const float> values, int width,
                                 std::span<const int64_t> rows) {
  FeatureStats stats;
  stats.means.assign(width, 0.0);
  stats.stds.assign(width, rows.empty() ? 1.0 : 0.0);
  if (rows.empty()) return stats;
  for (int64_t row : rows) {
    for (int c = 0; c < width; ++c) stats.means[c] += values[row * width + c];
  }
  for (double& mean : stats.means) mean /= static_cast<double>(rows.size());
  // Two passes: the squared deviations do not lose precision to a large mean.
  for (int64_t row : rows) {
    for (int c = 0; c < width; ++c) {
      const double d = values[row * width + c] - stats.means[c];
      stats.stds[c] += d * d;
    }
  }
  for (double& std_dev : stats.stds) std_dev = std::sqrt(std_dev / rows.size());
  return stats;
}

void NormalizeRows(const FeatureNormalizer& normalizer, std::span<float> values) {
  const size_t width = static_cast<size_t>(normalizer.size());
  for (size_t at = 0; at + width <= values.size(); at += width) {
    normalizer.Apply(values.subspan(at, width));
  }
}

}  // namespace shardplan::training
