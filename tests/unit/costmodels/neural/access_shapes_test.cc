#include "costmodels/neural/access_shapes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "costmodels/neural/table_features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/estimators/zipf_access_model.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kBatch = 65536;

// A table whose histogram is the pool generator's access model (docs/table-pool.md): a Zipf head
// of `exponent` over a uniform floor of `uniform_share`, all rows active.
Table ZipfTable(int64_t rows, double pooling_factor, double exponent, double uniform_share) {
  const ZipfAccessStats stats = ExpectedZipfAccess(
      rows, static_cast<int64_t>(pooling_factor * kBatch), exponent, uniform_share);
  Table table;
  table.name = "t";
  table.rows = rows;
  table.dim = 16;
  table.pooling_factor = pooling_factor;
  for (double rows_in_bin : stats.rows_per_bin) {
    table.access_bins.push_back(std::round(rows_in_bin / stats.distinct_rows * 1e6) / 1e6);
  }
  return table;
}

void AppendFeatures(const Table& table, std::vector<float>& features) {
  std::array<float, kNumTableFeatures> row;
  TableFeatures(table, table.dim, row);
  features.insert(features.end(), row.begin(), row.end());
}

// Training data shaped like the shipped pools': the generator's exponent (0.87) over uniform
// floors of every share, tables from 1,000 to 1M rows, pooling 0.5 to 128.
const std::vector<float>& PoolLikeFeatures() {
  static const std::vector<float>* const kFeatures = [] {
    auto* features = new std::vector<float>;
    for (int64_t rows : {1000, 10000, 100000, 1000000}) {
      for (double pooling : {0.5, 2.0, 8.0, 32.0, 128.0}) {
        for (double share : {0.0, 0.25, 0.5, 0.75, 1.0}) {
          AppendFeatures(ZipfTable(rows, pooling, 0.87, share), *features);
        }
      }
    }
    return features;
  }();
  return *kFeatures;
}

AccessShape Shape(std::initializer_list<std::pair<int, double>> bins) {
  AccessShape shape{};
  for (const auto& [bin, value] : bins) shape[bin] = value;
  return shape;
}

TEST(AccessShapesTest, CentresCoverEveryTrainingHistogramWithinTheRadius) {
  const std::vector<float> features = PoolLikeFeatures();
  const AccessShapeSummary few = SummarizeAccessShapes(features, 5, 0.3);
  ASSERT_EQ(few.centres.size(), 5u);
  EXPECT_GT(few.cover_radius, 0.0);
  EXPECT_EQ(few.threshold, 0.3);
  const AccessShapeSummary all = SummarizeAccessShapes(features, 1000, 0.3);
  EXPECT_EQ(all.cover_radius, 0.0);  // every distinct histogram is a centre
  EXPECT_LE(all.centres.size(), 100u);
  for (size_t row = 0; row < features.size(); row += kNumTableFeatures) {
    Table table;
    table.access_bins.resize(kNumAccessBins);
    const std::array<int, kNumAccessBins> kPosition = {0,  1, 9, 10, 11, 12, 13, 14, 15,
                                                       16, 2, 3, 4,  5,  6,  7,  8};
    for (int j = 0; j < kNumAccessBins; ++j) table.access_bins[j] = features[row + kPosition[j]];
    AccessShape shape;
    ASSERT_TRUE(AccessShapeOf(table, &shape));
    EXPECT_LE(DistanceToNearestShape(shape, few), few.cover_radius + 1e-6);
    EXPECT_LE(DistanceToNearestShape(shape, all), 1e-6);
  }
  // More centres never cover worse.
  EXPECT_LE(SummarizeAccessShapes(features, 20, 0.3).cover_radius, few.cover_radius);
}

TEST(AccessShapesTest, TheSummaryDependsOnlyOnTheSetOfHistograms) {
  const std::vector<float> features = PoolLikeFeatures();
  std::vector<std::array<float, kNumTableFeatures>> rows(features.size() / kNumTableFeatures);
  std::copy(features.begin(), features.end(), rows.front().begin());
  std::shuffle(rows.begin(), rows.end(), std::mt19937(7));
  std::vector<float> shuffled;
  for (const auto& row : rows) shuffled.insert(shuffled.end(), row.begin(), row.end());
  shuffled.insert(shuffled.end(), rows.front().begin(), rows.front().end());  // a repeat
  EXPECT_EQ(SummarizeAccessShapes(shuffled, 12, 0.3), SummarizeAccessShapes(features, 12, 0.3));
}

TEST(AccessShapesTest, FlagsASteepZipfTableButNotAPoolTable) {
  const AccessShapeSummary summary = SummarizeAccessShapes(
      PoolLikeFeatures(), kDefaultAccessShapeCentres, kDefaultAccessShapeThreshold);
  // Held out: sizes, pooling and floors the data did not hold, the pool's exponent.
  const Table pool = ZipfTable(30000, 5.0, 0.87, 0.4);
  EXPECT_EQ(AccessShapeOutside(pool, summary), "");
  // Rows and pooling inside the data's ranges, a much steeper head.
  const Table steep = ZipfTable(300000, 20.0, 1.6, 0.0);
  EXPECT_THAT(AccessShapeOutside(steep, summary),
              HasSubstr("(L1) from the nearest trained table's (flagged beyond 0.64)"));
}

TEST(AccessShapesTest, ATableWithoutAHistogramOrASummaryWithoutCentresIsNeverFlagged) {
  AccessShapeSummary summary;
  summary.centres = {Shape({{0, 1.0}})};
  Table table;
  table.rows = 100;
  EXPECT_EQ(AccessShapeOutside(table, summary), "");  // no histogram: the server imputes one
  table.access_bins.assign(kNumAccessBins, 0.0);
  table.access_bins[16] = 1.0;
  EXPECT_THAT(AccessShapeOutside(table, summary), HasSubstr("lookups by access class 2 (L1)"));
  EXPECT_EQ(AccessShapeOutside(table, AccessShapeSummary{}), "");
  AccessShape shape;
  ASSERT_TRUE(AccessShapeOf(table, &shape));
  EXPECT_EQ(DistanceToNearestShape(shape, AccessShapeSummary{}),
            std::numeric_limits<double>::infinity());
  EXPECT_THAT(SummarizeAccessShapes({}, 8, 0.3).centres, IsEmpty());
}

TEST(AccessShapesTest, TheCheckNamesWhatIsWrong) {
  AccessShapeSummary summary;
  EXPECT_THAT(std::string(CheckAccessShapeSummary(summary).message()), HasSubstr("no centres"));
  summary.centres = {Shape({{3, 1.5}})};
  EXPECT_THAT(std::string(CheckAccessShapeSummary(summary).message()),
              HasSubstr("centre 0 bin 3 is 1.5; need a fraction in [0, 1]"));
  summary.centres = {Shape({{3, 1.0}})};
  summary.threshold = std::nan("");
  EXPECT_THAT(std::string(CheckAccessShapeSummary(summary).message()),
              HasSubstr("threshold is nan"));
  summary.threshold = 0.3;
  summary.cover_radius = -0.1;
  EXPECT_THAT(std::string(CheckAccessShapeSummary(summary).message()),
              HasSubstr("cover_radius is -0.1"));
  summary.cover_radius = 0.0;
  EXPECT_TRUE(CheckAccessShapeSummary(summary).ok());
}

}  // namespace
}  // namespace shardplan
