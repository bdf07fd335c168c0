#include "planner/algorithms/dreamshard/dreamshard_features.h"

#include <cmath>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "planner/domain/table.h"

namespace shardplan {
namespace {

// Column k of `values` (one row per table) z-scored in place: (x - mean) / std with the
// population std, or x - mean when the std is 0 (the reference's NaN).
void ZScore(std::vector<double>& values) {
  if (values.empty()) return;
  double mean = 0.0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double var = 0.0;
  for (double v : values) var += (v - mean) * (v - mean);
  const double std = std::sqrt(var / static_cast<double>(values.size()));
  for (double& v : values) v = std > 0.0 ? (v - mean) / std : v - mean;
}

}  // namespace

std::string MissingAccessBinConstant(int bin) {
  return absl::StrCat("missing_access_bins.bin_", bin);
}

std::vector<float> DreamShardFeatures(const Task& task, std::span<const double> missing_bins) {
  const size_t n = task.tables.size();
  std::vector<double> rows(n), sizes(n), pooling(n);
  for (size_t i = 0; i < n; ++i) {
    const Table& table = task.tables[i];
    rows[i] = static_cast<double>(table.rows);
    sizes[i] = static_cast<double>(table.dim) * static_cast<double>(table.rows);
    pooling[i] = table.pooling_factor;
  }
  ZScore(rows);
  ZScore(sizes);
  ZScore(pooling);
  std::vector<float> features(n * kDreamShardFeatures, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    const Table& table = task.tables[i];
    float* row = &features[i * kDreamShardFeatures];
    row[0] = static_cast<float>(table.dim);
    row[1] = static_cast<float>(rows[i]);
    row[2] = static_cast<float>(pooling[i]);
    row[3] = static_cast<float>(sizes[i]);
    const bool has_bins = table.access_bins.size() == static_cast<size_t>(kNumAccessBins);
    for (int j = 0; j < kNumAccessBins; ++j) {
      const double bin = has_bins                                       ? table.access_bins[j]
                         : static_cast<size_t>(j) < missing_bins.size() ? missing_bins[j]
                                                                        : 0.0;
      row[4 + j] = static_cast<float>(bin);
    }
  }
  return features;
}

}  // namespace shardplan
