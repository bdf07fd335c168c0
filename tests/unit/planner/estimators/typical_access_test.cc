#include "planner/estimators/typical_access.h"

#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/table.h"

namespace shardplan {
namespace {

TEST(TypicalAccessTest, IsAHistogramOfSeventeenFractions) {
  const std::vector<double> bins = TypicalAccessBins(4'000'000, 15.8);
  ASSERT_EQ(bins.size(), static_cast<size_t>(kNumAccessBins));
  EXPECT_NEAR(std::accumulate(bins.begin(), bins.end(), 0.0), 1.0, 1e-9);
  for (double bin : bins) EXPECT_GE(bin, 0.0);
}

TEST(TypicalAccessTest, MoreLookupsMoveRowsToHigherBins) {
  const std::vector<double> light = TypicalAccessBins(1'000'000, 1.0);
  const std::vector<double> heavy = TypicalAccessBins(1'000'000, 100.0);
  EXPECT_GT(light[0], heavy[0]);  // fewer rows accessed exactly once
}

TEST(TypicalAccessTest, NoLookupsIsAllAccessedOnce) {
  const std::vector<double> bins = TypicalAccessBins(1000, 0.0);
  EXPECT_EQ(bins[0], 1.0);
  EXPECT_EQ(std::accumulate(bins.begin() + 1, bins.end(), 0.0), 0.0);
}

}  // namespace
}  // namespace shardplan
