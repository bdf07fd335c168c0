#include "base/statistics.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(StatisticsTest, EmptyIsZero) {
  EXPECT_EQ(Median({}), 0.0);
  EXPECT_EQ(Percentile({}, 99), 0.0);
  EXPECT_EQ(Mean({}), 0.0);
}

TEST(StatisticsTest, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({7}), 7.0);
}

TEST(StatisticsTest, PercentileInterpolatesBetweenClosestRanks) {
  const std::vector<double> values = {10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(Percentile(values, 0), 10.0);
  EXPECT_DOUBLE_EQ(Percentile(values, 100), 50.0);
  EXPECT_DOUBLE_EQ(Percentile(values, 50), Median(values));
  EXPECT_DOUBLE_EQ(Percentile(values, 90), 46.0);  // rank 3.6
  EXPECT_DOUBLE_EQ(Percentile(values, 150), 50.0);  // clamped
  EXPECT_DOUBLE_EQ(Percentile(values, -5), 10.0);
}

TEST(StatisticsTest, MeanOfValues) { EXPECT_DOUBLE_EQ(Mean({1, 2, 6}), 3.0); }

TEST(StatisticsTest, SampleStdDevUsesNMinusOne) {
  EXPECT_DOUBLE_EQ(SampleStdDev({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}), std::sqrt(32.0 / 7.0));
  EXPECT_EQ(SampleStdDev({3.0}), 0.0);
}

// The figures are SciPy 1.10's scipy.stats.levene on the same groups.
TEST(StatisticsTest, LeveneMatchesScipy) {
  const std::vector<double> a = {1.0, 2.0, 3.5, 4.0, 2.2};
  const std::vector<double> b = {2.0, 2.1, 2.05, 1.98, 2.3, 2.2};
  const std::vector<double> c = {10, 11, 13, 9, 12, 30};
  const LeveneResult median = LeveneTest({a, b});
  EXPECT_NEAR(median.statistic, 6.660832571950664, 1e-9);
  EXPECT_NEAR(median.p_value, 0.029654810962584422, 1e-9);
  const LeveneResult mean = LeveneTest({a, b}, LeveneCenter::kMean);
  EXPECT_NEAR(mean.statistic, 15.960970256885677, 1e-9);
  EXPECT_NEAR(mean.p_value, 0.0031334258549167164, 1e-9);
  const LeveneResult three = LeveneTest({a, b, c});
  EXPECT_NEAR(three.statistic, 1.531757546549297, 1e-9);
  EXPECT_NEAR(three.p_value, 0.25027458111602446, 1e-9);
  EXPECT_EQ(LeveneTest({a}).p_value, 1.0);
}

}  // namespace
}  // namespace shardplan
