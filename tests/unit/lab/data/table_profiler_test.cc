#include "lab/data/table_profiler.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using testing::HasSubstr;

std::vector<double> Bins(std::initializer_list<std::pair<int, double>> nonzero) {
  std::vector<double> bins(kNumAccessBins, 0.0);
  for (auto [bin, value] : nonzero) bins[bin] = value;
  return bins;
}

TEST(CostDataTableProfiler, HandComputedTable) {
  // Two samples: [7, 3, 7] and [7, 0]. Row 7 is read 3 times, rows 3 and 0 once each:
  // 3 distinct rows, two in (0,1], one in (2,4].
  const std::vector<int64_t> offsets = {0, 3, 5};
  const std::vector<int64_t> indices = {7, 3, 7, 0, 7};
  absl::StatusOr<Table> t = ProfileTable("t", offsets, indices);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "t");
  EXPECT_EQ(t->rows, 100);  // max index 7 + 1 = 8, clamped
  EXPECT_DOUBLE_EQ(t->pooling_factor, 2.5);
  const std::vector<double> expected = Bins({{0, 2.0 / 3}, {2, 1.0 / 3}});
  ASSERT_EQ(t->access_bins.size(), 17u);
  for (int j = 0; j < kNumAccessBins; ++j) EXPECT_DOUBLE_EQ(t->access_bins[j], expected[j]) << j;
}

TEST(CostDataTableProfiler, RowsAboveTheClampAreMaxIndexPlusOne) {
  const std::vector<int64_t> offsets = {0, 1, 1, 2};  // the middle sample is empty
  const std::vector<int64_t> indices = {150, 4};
  absl::StatusOr<Table> t = ProfileTable("t", offsets, indices);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->rows, 151);
  EXPECT_DOUBLE_EQ(t->pooling_factor, 2.0 / 3.0);
  EXPECT_EQ(t->access_bins, Bins({{0, 1.0}}));
  const std::vector<int64_t> edge = {99};
  EXPECT_EQ(ProfileTable("t", std::vector<int64_t>{0, 1}, edge)->rows, 100);
  const std::vector<int64_t> above = {100};
  EXPECT_EQ(ProfileTable("t", std::vector<int64_t>{0, 1}, above)->rows, 101);
}

TEST(CostDataTableProfiler, EmptyTableHasRowsOneClampedAndZeroBins) {
  const std::vector<int64_t> offsets = {0, 0, 0, 0};
  absl::StatusOr<Table> t = ProfileTable("empty", offsets, {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->rows, 100);
  EXPECT_EQ(t->pooling_factor, 0.0);
  EXPECT_EQ(t->access_bins, std::vector<double>(17, 0.0));
}

TEST(CostDataTableProfiler, RejectsMalformedOffsetsAndIndices) {
  const std::vector<int64_t> two = {1, 2};
  EXPECT_THAT(ProfileTable("t", std::vector<int64_t>{0}, {}).status().message(),
              HasSubstr("offsets: needs at least 2 entries"));
  EXPECT_THAT(ProfileTable("t", std::vector<int64_t>{1, 2}, two).status().message(),
              HasSubstr("offsets[0]: must be 0"));
  EXPECT_THAT(ProfileTable("t", std::vector<int64_t>{0, 2, 1, 2}, two).status().message(),
              HasSubstr("offsets[2]: 1 is less than the previous offset 2"));
  EXPECT_THAT(ProfileTable("t", std::vector<int64_t>{0, 3}, two).status().message(),
              HasSubstr("last offset 3 != number of indices 2"));
  const std::vector<int64_t> negative = {1, -5};
  EXPECT_THAT(ProfileTable("t", std::vector<int64_t>{0, 2}, negative).status().message(),
              HasSubstr("table \"t\": indices[1]: -5 is negative"));
}

}  // namespace
}  // namespace shardplan
