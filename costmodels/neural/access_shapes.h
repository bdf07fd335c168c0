#ifndef SHARDPLAN_COSTMODELS_NEURAL_ACCESS_SHAPES_H_
#define SHARDPLAN_COSTMODELS_NEURAL_ACCESS_SHAPES_H_

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "planner/domain/table.h"

namespace shardplan {

// Where a table's lookups go, by access class: share j is the share of the batch's lookups that
// land on rows of histogram bin j (bin 0 .. bin 16, not the features' lexicographic order).
// The histogram itself counts distinct rows, so a steep Zipf head (a handful of rows taking most
// lookups) and a flat table with a hot tail look alike there (the hot bins hold a few millionths
// of the rows either way); by lookups they differ (docs/cost-models.md, "Outside the training
// data").
using AccessShape = std::array<double, kNumAccessBins>;

// The lookup shares of a 17-bin histogram (distinct-row fractions): bin j weighted by the access
// count that stands for it (1 for bin 0, the middle of (2^(j-1), 2^j] above, 1.5 x 32768 for bin
// 16: the simulator's reading), normalised, rounded to 6 decimals. All zero when the histogram
// is (a table without lookups).
AccessShape LookupShares(std::span<const double> bins);

// The access shapes a compute model was trained on, in a form small enough for a manifest, so
// that the server can flag a table whose lookups fall in a pattern the model never saw, even when
// every one of its features lies inside the per-feature training range. The centres are training
// shapes themselves (a greedy k-centre cover of the distinct ones): every training shape lies
// within `cover_radius` of a centre, so the distance to the nearest centre overestimates the
// distance to the nearest training shape by at most that much.
struct AccessShapeSummary {
  std::vector<AccessShape> centres;
  double cover_radius = 0.0;
  // A table whose shape lies farther than this from every centre is flagged.
  double threshold = 0.0;
  friend bool operator==(const AccessShapeSummary&, const AccessShapeSummary&) = default;
};

// Centres kept by `model train`: 128 cover the shipped version-5 training pool's 3,279 distinct
// shapes within 0.39 and keep the manifest small (17 x 128 numbers); more centres flag fewer
// steep tables the model happens to cost well, no more of those it mispredicts
// (docs/cost-models.md, "Outside the training data").
inline constexpr size_t kDefaultAccessShapeCentres = 128;
// The threshold `model train` records: chosen by bench/ood_detection on the development pools
// (DLRM-shaped seeds 1 and 2, steep-Zipf seeds 11 and 12), reported on others (7 and 17).
inline constexpr double kDefaultAccessShapeThreshold = 0.64;

// The distance of two shapes: L1 over the 17 bins, in [0, 2] (twice the share of lookups that
// would have to change access class).
double AccessShapeDistance(const AccessShape& a, const AccessShape& b);

// Summarises the shapes (LookupShares) of the histograms of `features` (rows of
// kNumTableFeatures raw floats, TableFeatures order, as cost data holds them) with at most
// `max_centres` centres (at least 1) chosen by farthest-point traversal from the
// lexicographically first distinct shape, so the result depends only on the set of histograms.
// Rows whose 17 bins are all zero (a table without lookups) take part like any other. No rows
// gives no centres.
AccessShapeSummary SummarizeAccessShapes(std::span<const float> features, size_t max_centres,
                                         double threshold);

// The distance from `shape` to the nearest centre of `summary`; +infinity without centres.
double DistanceToNearestShape(const AccessShape& shape, const AccessShapeSummary& summary);

// The table's shape (LookupShares of its histogram); false when it has none (an empty
// access_bins).
bool AccessShapeOf(const Table& table, AccessShape* shape);

// Why the table's shape lies outside `summary`, as "lookups by access class 0.71 (L1) from the
// nearest trained table's (flagged beyond 0.35)"; empty when it lies within the threshold, when
// the table has no histogram or the summary no centres.
std::string AccessShapeOutside(const Table& table, const AccessShapeSummary& summary);

// INVALID_ARGUMENT naming the reason unless every centre's bins are finite and in [0, 1], the
// radius and threshold are finite and >= 0, and there is at least one centre.
absl::Status CheckAccessShapeSummary(const AccessShapeSummary& summary);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_ACCESS_SHAPES_H_
