#include "costmodels/access/access_histogram.h"

#include <vector>

#include "gtest/gtest.h"
#include "planner/domain/table.h"

namespace shardplan {
namespace {

// `count` copies of `index`.
void Repeat(std::vector<int64_t>& out, int64_t index, int64_t count) {
  out.insert(out.end(), count, index);
}

TEST(AccessHistogramTest, BinEdgesArePowersOfTwoInclusiveAbove) {
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

TEST(AccessHistogramTest, CountsExactlyAtPowersOfTwoAndAboveTheLastEdge) {
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

}  // namespace
}  // namespace shardplan
