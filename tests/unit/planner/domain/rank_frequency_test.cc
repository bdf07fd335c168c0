#include "planner/domain/rank_frequency.h"

#include <cmath>
#include <numeric>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(RankFrequencyCurveTest, ZipfMatchesTheDirectSum) {
  // Past the exact head the harmonic number is Euler-Maclaurin's: compare with a direct sum.
  const int64_t rows = 200'000;
  for (double s : {0.0, 0.5, 1.0, 1.3}) {
    const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(rows, s);
    double total = 0.0;
    for (int64_t k = 1; k <= rows; ++k) total += std::pow(static_cast<double>(k), -s);
    double prefix = 0.0;
    for (int64_t k = 1; k <= 50'000; ++k) prefix += std::pow(static_cast<double>(k), -s);
    EXPECT_NEAR(curve.CumulativeShare(50'000), prefix / total, 1e-13) << s;
    EXPECT_NEAR(curve.ShareOfRank(0) * total, 1.0, 1e-12) << s;
    EXPECT_EQ(curve.CumulativeShare(rows), 1.0);
  }
}

TEST(RankFrequencyCurveTest, ShareOfARankRangeAndRowsToCover) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  // The example: the hottest 1% of a Zipf(1) table serves about 72.4% of its lookups
  // (H(1e5) / H(1e7) = 12.09 / 16.70).
  EXPECT_NEAR(curve.Share(0, 100'000), 0.72416, 1e-5);
  EXPECT_NEAR(curve.Share(100'000, 200'000) + curve.Share(0, 100'000), curve.Share(0, 200'000),
              1e-15);
  const int64_t rows = curve.RowsToCover(0.5);
  EXPECT_GE(curve.CumulativeShare(rows), 0.5);
  EXPECT_LT(curve.CumulativeShare(rows - 1), 0.5);
  EXPECT_EQ(curve.RowsToCover(0.0), 0);
  EXPECT_EQ(curve.RowsToCover(2.0), 10'000'000);
}

TEST(RankFrequencyCurveTest, UniformFloorAndActiveRows) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(1000, 1.0, 0.2, 100);
  EXPECT_EQ(curve.ShareOfRank(100), 0.0);  // inactive
  EXPECT_NEAR(curve.CumulativeShare(100), 1.0, 1e-15);
  double h = 0.0;
  for (int k = 1; k <= 100; ++k) h += 1.0 / k;
  EXPECT_NEAR(curve.ShareOfRank(0), 0.8 / h + 0.2 / 100, 1e-15);
  EXPECT_NEAR(curve.ShareOfRank(99), 0.8 / (100 * h) + 0.2 / 100, 1e-15);
  EXPECT_GT(curve.ShareOfRank(98), curve.ShareOfRank(99));
  EXPECT_GT(curve.ShareOfRank(99), 0.2 / 100);
}

TEST(RankFrequencyCurveTest, StaircaseNormalisesAndClamps) {
  const RankFrequencyCurve curve =
      RankFrequencyCurve::Staircase(10, {{.rows = 2, .weight = 6}, {.rows = 3, .weight = 2}});
  EXPECT_NEAR(curve.ShareOfRank(0), 6.0 / 18, 1e-15);
  EXPECT_NEAR(curve.ShareOfRank(4), 2.0 / 18, 1e-15);
  EXPECT_EQ(curve.ShareOfRank(5), 0.0);  // past the steps
  EXPECT_NEAR(curve.Share(1, 3), 8.0 / 18, 1e-15);
  EXPECT_NEAR(curve.CumulativeShare(10), 1.0, 1e-15);
  EXPECT_EQ(curve.RowsToCover(12.0 / 18), 2);
  const RankFrequencyCurve uniform = RankFrequencyCurve::Uniform(4);
  EXPECT_NEAR(uniform.Share(1, 3), 0.5, 1e-15);
}

TEST(RankFrequencyCurveTest, AccessClassesOfARankRange) {
  const RankFrequencyCurve curve =
      RankFrequencyCurve::Staircase(100, {{.rows = 10, .weight = 9}, {.rows = 90, .weight = 1}});
  // 1800 lookups: the top 10 rows get 90 each (bin 7: (64, 128]), the others 10 (bin 4).
  const auto classes = curve.AccessClasses(0, 100, 1800);
  EXPECT_DOUBLE_EQ(classes[7], 10.0);
  EXPECT_DOUBLE_EQ(classes[4], 90.0);
  const auto tail = curve.AccessClasses(50, 60, 1800);
  EXPECT_DOUBLE_EQ(std::accumulate(tail.begin(), tail.end(), 0.0), 10.0);
  // Rows touched less than once count by the chance they are touched at all.
  const auto cold = curve.AccessClasses(10, 100, 18);  // 0.1 each
  EXPECT_NEAR(cold[0], 90 * -std::expm1(-0.1), 1e-12);
  // A Zipf range sums its buckets to about its rows.
  const RankFrequencyCurve zipf = RankFrequencyCurve::Zipf(1'000'000, 1.0);
  const auto hot = zipf.AccessClasses(0, 1000, 1e9);
  EXPECT_NEAR(std::accumulate(hot.begin(), hot.end(), 0.0), 1000.0, 1e-9);
  EXPECT_GT(hot[16], 0.0);
}

TEST(RankFrequencyCurveTest, BinsOfCounts) {
  EXPECT_EQ(AccessBinOfCount(0.5), 0);
  EXPECT_EQ(AccessBinOfCount(1.0), 0);
  EXPECT_EQ(AccessBinOfCount(2.0), 1);
  EXPECT_EQ(AccessBinOfCount(3.0), 2);
  EXPECT_EQ(AccessBinOfCount(32768.0), 15);
  EXPECT_EQ(AccessBinOfCount(40000.0), 16);
  EXPECT_EQ(BinAccessCount(0), 1.0);
  EXPECT_EQ(BinAccessCount(3), 6.0);
}

}  // namespace
}  // namespace shardplan
