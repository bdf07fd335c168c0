#include "lab/training/feature_stats.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/split.h"

namespace shardplan::training {
namespace {

TEST(FeatureStatsTest, MeanAndPopulationStdOverTheGivenRows) {
  // Two columns, four rows; the stats use rows 0, 1, 3 only.
  const std::vector<float> values = {1, 10, 2, 10, 100, -5, 3, 40};
  const FeatureStats stats = ComputeFeatureStats(values, 2, std::vector<int64_t>{0, 1, 3});
  EXPECT_DOUBLE_EQ(stats.means[0], 2.0);
  EXPECT_DOUBLE_EQ(stats.means[1], 20.0);
  EXPECT_DOUBLE_EQ(stats.stds[0], std::sqrt(2.0 / 3.0));  // ddof = 0, as numpy
  EXPECT_DOUBLE_EQ(stats.stds[1], std::sqrt(200.0));
}

TEST(FeatureStatsTest, NormalizeRowsUsesTheServingArithmetic) {
  absl::StatusOr<FeatureNormalizer> normalizer = FeatureNormalizer::Create({1.0, 2.0}, {2.0, 0.0});
  ASSERT_TRUE(normalizer.ok());
  std::vector<float> values = {3, 2, 5, 3};
  NormalizeRows(*normalizer, values);
  std::vector<float> row = {5, 3};
  normalizer->Apply(row);
  EXPECT_FLOAT_EQ(values[0], 2.0f / (2.0f + 1e-6f));
  EXPECT_FLOAT_EQ(values[1], 0.0f);
  EXPECT_EQ(values[2], row[0]);
  EXPECT_EQ(values[3], row[1]);
}

}  // namespace
}  // namespace shardplan::training
