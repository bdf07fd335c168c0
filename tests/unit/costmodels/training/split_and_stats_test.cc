#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "costmodels/training/feature_stats.h"
#include "costmodels/training/split.h"
#include "gtest/gtest.h"

namespace shardplan::training {
namespace {

TEST(SplitTest, EightyTenTenDisjointAndComplete) {
  const Split split = SplitDataset(1005, 3);
  EXPECT_EQ(split.train.size(), 804u);  // floor(0.8 n)
  EXPECT_EQ(split.valid.size(), 100u);  // floor(0.1 n)
  EXPECT_EQ(split.test.size(), 101u);   // the rest
  std::set<int64_t> all(split.train.begin(), split.train.end());
  all.insert(split.valid.begin(), split.valid.end());
  all.insert(split.test.begin(), split.test.end());
  EXPECT_EQ(all.size(), 1005u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 1004);
}

TEST(SplitTest, DependsOnlyOnTheSeed) {
  EXPECT_EQ(SplitDataset(100, 7).test, SplitDataset(100, 7).test);
  EXPECT_NE(SplitDataset(100, 7).train, SplitDataset(100, 8).train);
  // Shuffled, not the identity.
  const Split split = SplitDataset(100, 7);
  EXPECT_FALSE(std::is_sorted(split.train.begin(), split.train.end()));
}

TEST(SplitTest, ShuffleIsPortableFisherYates) {
  // Pinned: the first draws of std::mt19937_64(1) (specified bit-exactly by the standard).
  std::vector<int64_t> v = {0, 1, 2, 3, 4};
  std::mt19937_64 rng(1);
  ShuffleIndices(v, rng);
  std::vector<int64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  std::vector<int64_t> again = {0, 1, 2, 3, 4};
  std::mt19937_64 rng_again(1);
  ShuffleIndices(again, rng_again);
  EXPECT_EQ(v, again);
}

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
