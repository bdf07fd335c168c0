#include "costmodels/data/table_profiler.h"

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

// `count` copies of `index`.
void Repeat(std::vector<int64_t>& out, int64_t index, int64_t count) {
  out.insert(out.end(), count, index);
}

TEST(CostDataTableProfiler, BinEdgesArePowersOfTwoInclusiveAbove) {
  EXPECT_EQ(AccessBinOf(1), 0);
  EXPECT_EQ(AccessBinOf(2), 1);
  EXPECT_EQ(AccessBinOf(3), 2);
  EXPECT_EQ(AccessBinOf(4), 2);
  EXPECT_EQ(AccessBinOf(5), 3);
  EXPECT_EQ(AccessBinOf(8), 3);
  EXPECT_EQ(AccessBinOf(9), 4);
  EXPECT_EQ(AccessBinOf(16384), 14);
  EXPECT_EQ(AccessBinOf(16385), 15);
  EXPECT_EQ(AccessBinOf(32768), 15);
  EXPECT_EQ(AccessBinOf(32769), 16);
  EXPECT_EQ(AccessBinOf(int64_t{1} << 40), 16);
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

TEST(CostDataTableProfiler, CountsExactlyAtPowersOfTwoAndAboveTheLastEdge) {
  // Row r is read 2^r times for r = 0..15 (each exactly on its bin's upper edge), row 16
  // 2^15 + 1 times (bin 16), rows 17 and 18 three times (bin 2): 19 distinct rows.
  std::vector<int64_t> indices;
  for (int r = 0; r <= 15; ++r) Repeat(indices, r, int64_t{1} << r);
  Repeat(indices, 16, 32769);
  Repeat(indices, 17, 3);
  Repeat(indices, 18, 3);
  const std::vector<double> bins = ComputeAccessBins(indices);
  for (int j = 0; j < kNumAccessBins; ++j) {
    const double expected = (j == 2 ? 3.0 : 1.0) / 19.0;
    EXPECT_DOUBLE_EQ(bins[j], expected) << "bin " << j;
  }
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
