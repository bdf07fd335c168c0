#include "lab/training/split.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/feature_stats.h"

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

}  // namespace
}  // namespace shardplan::training
