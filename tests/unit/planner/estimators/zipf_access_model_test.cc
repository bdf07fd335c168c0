#include "planner/estimators/zipf_access_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "base/seeded_rng.h"
#include "costmodels/access/access_histogram.h"
#include "gtest/gtest.h"
#include "planner/domain/table.h"

namespace shardplan {
namespace {

double Sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

TEST(CostDataZipfAccessModel, PoissonCdfMatchesClosedFormsAndBothMethods) {
  EXPECT_EQ(PoissonCdf(-1, 3.0), 0.0);
  EXPECT_NEAR(PoissonCdf(0, 3.0), std::exp(-3.0), 1e-15);
  EXPECT_NEAR(PoissonCdf(2, 1.5), std::exp(-1.5) * (1 + 1.5 + 1.125), 1e-14);
  EXPECT_NEAR(PoissonCdf(4, 0.5), 0.9998278, 1e-7);
  // Far above / below the mean.
  EXPECT_EQ(PoissonCdf(1000, 10.0), 1.0);
  EXPECT_EQ(PoissonCdf(10, 1e6), 0.0);
  // Near the mean of a large lambda: about one half, plus the skew term 1/(3 sqrt(2 pi lambda)).
  EXPECT_NEAR(PoissonCdf(1000000, 1e6), 0.5 + 0.000266, 1e-4);
  // The two regimes of the incomplete gamma meet smoothly: CDF(k) increases in k.
  double previous = 0.0;
  for (int64_t k = 150; k <= 260; ++k) {
    const double c = PoissonCdf(k, 205.0);
    EXPECT_GE(c, previous);
    previous = c;
  }
}

TEST(CostDataZipfAccessModel, ExpectationsAreConsistent) {
  for (double exponent : {0.0, 0.7, 1.3}) {
    const ZipfAccessStats s = ExpectedZipfAccess(1000000, 500000, exponent);
    ASSERT_EQ(s.rows_per_bin.size(), 17u);
    EXPECT_NEAR(Sum(s.rows_per_bin), s.distinct_rows, 1e-6 * s.distinct_rows) << exponent;
    EXPECT_NEAR(Sum(s.lookups_per_bin), 500000.0, 1e-3) << exponent;
    EXPECT_LE(s.distinct_rows, 500000.0);
  }
  // Uniform over many more rows than lookups: nearly every lookup hits a new row.
  const ZipfAccessStats sparse = ExpectedZipfAccess(100000000, 1000, 0.0);
  EXPECT_NEAR(sparse.distinct_rows, 1000.0, 0.01);
  EXPECT_NEAR(sparse.rows_per_bin[0] / sparse.distinct_rows, 1.0, 1e-4);
  // Uniform with 8 lookups per row: almost every row accessed, counts around 8 (bins 3 and 4).
  const ZipfAccessStats dense = ExpectedZipfAccess(1000, 8000, 0.0);
  EXPECT_NEAR(dense.distinct_rows, 1000.0 * (1 - std::exp(-8.0)), 1e-6);
  EXPECT_GT((dense.rows_per_bin[3] + dense.rows_per_bin[4]) / dense.distinct_rows, 0.75);
  // A steep Zipf puts its head row above 32768 accesses.
  EXPECT_GT(ExpectedZipfAccess(1000, 1000000, 2.0).rows_per_bin[16], 0.99);
  const ZipfAccessStats none = ExpectedZipfAccess(100, 0, 1.0);
  EXPECT_EQ(none.distinct_rows, 0.0);
  EXPECT_EQ(Sum(none.rows_per_bin), 0.0);
}

// Draws `lookups` rows 1..rows with P(r) ~ r^-exponent, as 0-based indices.
std::vector<int64_t> SimulateBatch(const std::vector<double>& cumulative, int64_t lookups,
                                   std::mt19937_64& rng) {
  std::vector<int64_t> indices(lookups);
  for (int64_t& index : indices) {
    const double u = Uniform01(rng) * cumulative.back();
    index = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
  }
  return indices;
}

// The quadrature's expectations agree with real batches profiled exactly as the reference
// does (ComputeAccessBins), including the distinct-row count behind the fractions.
TEST(CostDataZipfAccessModel, AgreesWithSimulatedBatchesThroughTheProfiler) {
  const int64_t rows = 2000, lookups = 10000;
  for (double exponent : {0.0, 0.8, 1.2}) {
    std::vector<double> cumulative(rows);
    double total = 0.0;
    for (int64_t r = 0; r < rows; ++r) cumulative[r] = total += std::pow(r + 1.0, -exponent);
    std::mt19937_64 rng(42);
    const int batches = 40;
    std::vector<double> mean_rows_per_bin(kNumAccessBins, 0.0);
    double mean_distinct = 0.0;
    for (int b = 0; b < batches; ++b) {
      const std::vector<int64_t> batch = SimulateBatch(cumulative, lookups, rng);
      std::vector<int64_t> copy = batch;
      std::sort(copy.begin(), copy.end());
      const double d = std::unique(copy.begin(), copy.end()) - copy.begin();
      const std::vector<double> bins = ComputeAccessBins(batch);
      for (int j = 0; j < kNumAccessBins; ++j) mean_rows_per_bin[j] += bins[j] * d / batches;
      mean_distinct += d / batches;
    }
    const ZipfAccessStats expected = ExpectedZipfAccess(rows, lookups, exponent);
    EXPECT_NEAR(expected.distinct_rows, mean_distinct, 0.01 * mean_distinct) << exponent;
    for (int j = 0; j < kNumAccessBins; ++j) {
      EXPECT_NEAR(expected.rows_per_bin[j], mean_rows_per_bin[j], 0.01 * mean_distinct + 2.0)
          << "exponent " << exponent << " bin " << j;
    }
  }
}

}  // namespace
}  // namespace shardplan
