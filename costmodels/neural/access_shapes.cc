#include "costmodels/neural/access_shapes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "costmodels/neural/table_features.h"
#include "planner/domain/rank_frequency.h"  // BinAccessCount: the simulator reads bins so too

namespace shardplan {
namespace {

// Feature position of each histogram bin, read off the feature names ("bin_<j>").
std::array<int, kNumAccessBins> BinPositions() {
  std::array<int, kNumAccessBins> positions{};
  const auto& names = TableFeatureNames();
  for (int p = 0; p < kNumTableFeatures; ++p) {
    const std::string_view name = names[p];
    if (!name.starts_with("bin_")) continue;
    int bin = 0;
    for (char c : name.substr(4)) bin = bin * 10 + (c - '0');
    positions[bin] = p;
  }
  return positions;
}

}  // namespace

AccessShape LookupShares(std::span<const double> bins) {
  AccessShape shares{};
  double total = 0.0;
  for (int j = 0; j < kNumAccessBins && j < static_cast<int>(bins.size()); ++j) {
    shares[j] = std::max(0.0, bins[j]) * BinAccessCount(j);
    total += shares[j];
  }
  if (total <= 0.0) return AccessShape{};
  // Rounded to 6 decimals, so a manifest holds the centres compactly.
  for (double& share : shares) share = std::round(share / total * 1e6) / 1e6;
  return shares;
}

double AccessShapeDistance(const AccessShape& a, const AccessShape& b) {
  double sum = 0.0;
  for (int j = 0; j < kNumAccessBins; ++j) sum += std::abs(a[j] - b[j]);
  return sum;
}

AccessShapeSummary SummarizeAccessShapes(std::span<const float> features, size_t max_centres,
                                         double threshold) {
  static const std::array<int, kNumAccessBins> kPositions = BinPositions();
  std::vector<AccessShape> shapes;
  shapes.reserve(features.size() / kNumTableFeatures);
  for (size_t row = 0; row + kNumTableFeatures <= features.size(); row += kNumTableFeatures) {
    std::array<double, kNumAccessBins> bins;
    for (int j = 0; j < kNumAccessBins; ++j) bins[j] = features[row + kPositions[j]];
    shapes.push_back(LookupShares(bins));
  }
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());

  AccessShapeSummary summary;
  summary.threshold = threshold;
  if (shapes.empty()) return summary;
  // Farthest-point traversal (Gonzalez): a 2-approximation of the smallest radius any
  // `max_centres` centres could cover the histograms with.
  std::vector<double> nearest(shapes.size(), std::numeric_limits<double>::infinity());
  size_t next = 0;
  const size_t limit = std::max<size_t>(max_centres, 1);
  while (true) {
    const AccessShape& centre = shapes[next];
    summary.centres.push_back(centre);
    double farthest = -1.0;
    for (size_t i = 0; i < shapes.size(); ++i) {
      nearest[i] = std::min(nearest[i], AccessShapeDistance(shapes[i], centre));
      if (nearest[i] > farthest) {
        farthest = nearest[i];
        next = i;
      }
    }
    summary.cover_radius = farthest;
    if (summary.centres.size() >= limit || farthest <= 0.0) break;
  }
  return summary;
}

double DistanceToNearestShape(const AccessShape& shape, const AccessShapeSummary& summary) {
  double best = std::numeric_limits<double>::infinity();
  for (const AccessShape& centre : summary.centres) {
    best = std::min(best, AccessShapeDistance(shape, centre));
  }
  return best;
}

bool AccessShapeOf(const Table& table, AccessShape* shape) {
  if (table.access_bins.size() != static_cast<size_t>(kNumAccessBins)) return false;
  *shape = LookupShares(table.access_bins);
  return true;
}

std::string AccessShapeOutside(const Table& table, const AccessShapeSummary& summary) {
  AccessShape shape;
  if (summary.centres.empty() || !AccessShapeOf(table, &shape)) return "";
  const double distance = DistanceToNearestShape(shape, summary);
  if (distance <= summary.threshold) return "";
  return absl::StrFormat(
      "lookups by access class %.3g (L1) from the nearest trained table's (flagged beyond %.3g)",
      distance, summary.threshold);
}

absl::Status CheckAccessShapeSummary(const AccessShapeSummary& summary) {
  if (summary.centres.empty()) {
    return absl::InvalidArgumentError("access shapes: no centres");
  }
  for (size_t c = 0; c < summary.centres.size(); ++c) {
    for (int j = 0; j < kNumAccessBins; ++j) {
      const double v = summary.centres[c][j];
      if (!std::isfinite(v) || v < 0.0 || v > 1.0) {
        return absl::InvalidArgumentError(absl::StrCat("access shapes: centre ", c, " bin ", j,
                                                       " is ", v, "; need a fraction in [0, 1]"));
      }
    }
  }
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"cover_radius", summary.cover_radius},
        {"threshold", summary.threshold}}) {
    if (!std::isfinite(value) || value < 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("access shapes: ", name, " is ", value, "; need a finite value >= 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace shardplan
