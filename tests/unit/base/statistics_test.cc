#include "base/statistics.h"

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

}  // namespace
}  // namespace shardplan
