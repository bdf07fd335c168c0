#include "costmodels/neural/table_features.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

// Histogram bin held by each of the first 17 feature positions (lexicographic key order).
constexpr std::array<int, kNumAccessBins> kBinAtPosition = {0, 1, 10, 11, 12, 13, 14, 15, 16,
                                                            2, 3, 4,  5,  6,  7,  8,  9};
constexpr int kDimPosition = 17;
constexpr int kPoolingFactorPosition = 18;
constexpr int kRowPosition = 19;

}  // namespace

const std::array<std::string_view, kNumTableFeatures>& TableFeatureNames() {
  static const std::array<std::string_view, kNumTableFeatures> kNames = {
      "bin_0",  "bin_1",  "bin_10", "bin_11", "bin_12",         "bin_13", "bin_14",
      "bin_15", "bin_16", "bin_2",  "bin_3",  "bin_4",          "bin_5",  "bin_6",
      "bin_7",  "bin_8",  "bin_9",  "dim",    "pooling_factor", "row"};
  return kNames;
}

void TableFeatures(const Table& table, int32_t dim, std::span<float, kNumTableFeatures> out) {
  const bool has_bins = table.access_bins.size() == static_cast<size_t>(kNumAccessBins);
  for (int p = 0; p < kNumAccessBins; ++p) {
    out[p] = has_bins ? static_cast<float>(table.access_bins[kBinAtPosition[p]]) : 0.0f;
  }
  out[kDimPosition] = static_cast<float>(dim);
  out[kPoolingFactorPosition] = static_cast<float>(table.pooling_factor);
  out[kRowPosition] = static_cast<float>(table.rows);
}

int NumShardFeatures(ShardFeatureSet set) {
  return set == ShardFeatureSet::kServed ? kNumServedFeatures : kNumTableFeatures;
}

const char* ShardFeatureSetName(ShardFeatureSet set) {
  return set == ShardFeatureSet::kServed ? "served" : "reference";
}

bool ParseShardFeatureSet(std::string_view name, ShardFeatureSet* set) {
  if (name == "reference") {
    *set = ShardFeatureSet::kReference;
  } else if (name == "served") {
    *set = ShardFeatureSet::kServed;
  } else {
    return false;
  }
  return true;
}

std::vector<std::string> ShardFeatureNames(ShardFeatureSet set) {
  std::vector<std::string> names;
  for (std::string_view name : TableFeatureNames()) names.emplace_back(name);
  if (set == ShardFeatureSet::kServed) names.emplace_back("batch_share");
  return names;
}

void ServedShardFeatures(const ShardView& shard, std::span<float, kNumServedFeatures> out) {
  TableFeatures(*shard.table, shard.columns, out.first<kNumTableFeatures>());
  const double batch_share = BatchShare(shard, shard.group_size);
  out[kPoolingFactorPosition] =
      static_cast<float>(shard.table->pooling_factor * LookupShare(shard) / batch_share);
  out[kRowPosition] = static_cast<float>(shard.rows);
  out[kNumTableFeatures] = static_cast<float>(batch_share);
}

const char* FeatureTransformName(FeatureTransform transform) {
  return transform == FeatureTransform::kLog ? "log" : "raw";
}

bool ParseFeatureTransform(std::string_view name, FeatureTransform* transform) {
  if (name == "raw") {
    *transform = FeatureTransform::kRaw;
  } else if (name == "log") {
    *transform = FeatureTransform::kLog;
  } else {
    return false;
  }
  return true;
}

void TransformFeatures(FeatureTransform transform, std::span<float, kNumTableFeatures> row) {
  if (transform == FeatureTransform::kRaw) return;
  row[kPoolingFactorPosition] =
      static_cast<float>(std::log1p(std::max(0.0f, row[kPoolingFactorPosition])));
  row[kRowPosition] = static_cast<float>(std::log10(std::max(1.0f, row[kRowPosition])));
}

absl::StatusOr<FeatureNormalizer> FeatureNormalizer::Create(std::vector<double> means,
                                                            std::vector<double> stds) {
  if (means.empty() || means.size() != stds.size()) {
    return absl::InvalidArgumentError(absl::StrCat("feature normaliser: ", means.size(),
                                                   " means and ", stds.size(),
                                                   " stds; need the same non-zero count"));
  }
  for (size_t i = 0; i < means.size(); ++i) {
    if (!std::isfinite(means[i]) || !std::isfinite(stds[i]) || stds[i] < 0.0) {
      return absl::InvalidArgumentError(absl::StrCat("feature normaliser: feature ", i,
                                                     " has mean ", means[i], " and std ", stds[i],
                                                     "; need finite, std >= 0"));
    }
  }
  return FeatureNormalizer(std::move(means), std::move(stds));
}

FeatureNormalizer::FeatureNormalizer(std::vector<double> means, std::vector<double> stds)
    : means_(std::move(means)), stds_(std::move(stds)) {
  shift_.resize(means_.size());
  scale_.resize(means_.size());
  for (size_t i = 0; i < means_.size(); ++i) {
    shift_[i] = static_cast<float>(means_[i]);
    scale_[i] = static_cast<float>(1.0 / (stds_[i] + kStdEpsilon));
  }
}

void FeatureNormalizer::Apply(std::span<float> values) const {
  const size_t n = values.size() < shift_.size() ? values.size() : shift_.size();
  for (size_t i = 0; i < n; ++i) values[i] = (values[i] - shift_[i]) * scale_[i];
}

TableFeatureRange RangeOfFeatures(std::span<const float> features) {
  TableFeatureRange range;
  range.min.assign(kNumTableFeatures, std::numeric_limits<double>::infinity());
  range.max.assign(kNumTableFeatures, -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < features.size(); ++i) {
    const size_t f = i % kNumTableFeatures;
    range.min[f] = std::min(range.min[f], static_cast<double>(features[i]));
    range.max[f] = std::max(range.max[f], static_cast<double>(features[i]));
  }
  return range;
}

std::vector<std::string> FeaturesOutsideRange(const Table& table, int32_t dim,
                                              const TableFeatureRange& range, size_t limit) {
  std::vector<std::string> out;
  if (range.min.size() != kNumTableFeatures || range.max.size() != kNumTableFeatures) return out;
  std::array<float, kNumTableFeatures> features;
  TableFeatures(table, dim, features);
  std::vector<std::pair<double, int>> outside;  // (distance in range widths, feature)
  for (int f = 0; f < kNumTableFeatures; ++f) {
    const double x = features[f];
    if (x >= range.min[f] && x <= range.max[f]) continue;
    const double width = std::max(range.max[f] - range.min[f], 1e-12);
    outside.emplace_back(x < range.min[f] ? (range.min[f] - x) / width : (x - range.max[f]) / width,
                         f);
  }
  std::stable_sort(outside.begin(), outside.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < outside.size() && k < limit; ++k) {
    const int f = outside[k].second;
    out.push_back(absl::StrCat(std::string(TableFeatureNames()[f]), " ", features[f],
                               " (trained on ", range.min[f], " to ", range.max[f], ")"));
  }
  return out;
}

}  // namespace shardplan
