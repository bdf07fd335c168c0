#ifndef SHARDPLAN_LAB_TRAINING_FEATURE_STATS_H_
#define SHARDPLAN_LAB_TRAINING_FEATURE_STATS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "costmodels/neural/table_features.h"

namespace shardplan::training {

// Per-column mean and population standard deviation (numpy's default, ddof=0, as the
// reference's np.mean/np.std), accumulated in double in row order.
struct FeatureStats {
  std::vector<double> means;
  std::vector<double> stds;
};

// Over the rows `rows` of the row-major matrix `values` with `width` columns. An empty `rows`
// gives means 0 and stds 1 (nothing to learn from; keeps the normaliser valid).
FeatureStats ComputeFeatureStats(std::span<const float> values, int width,
                                 std::span<const int64_t> rows);

// Normalises every row (normalizer.size() floats) of `values` in place with the serving code's
// own arithmetic, so training sees exactly what inference will.
void NormalizeRows(const FeatureNormalizer& normalizer, std::span<float> values);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_FEATURE_STATS_H_
