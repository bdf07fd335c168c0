#include "groundtruth/cpu/lookup_sampler.h"

#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

// The reference's profile of one table (gen_dlrm_data.py): access count per distinct row,
// fraction of distinct rows per bin (0,1], (1,2], (2,4], ..., bin 16 > 32768.
std::array<double, kNumAccessBins> ProfileBins(const std::vector<int64_t>& indices) {
  std::map<int64_t, int64_t> counts;
  for (int64_t i : indices) ++counts[i];
  std::array<double, kNumAccessBins> bins{};
  for (const auto& [row, count] : counts) {
    int j = 0;
    int64_t end = 1;
    while (j < kNumAccessBins - 1 && count > end) {
      ++j;
      end *= 2;
    }
    bins[j] += 1.0;
  }
  for (double& b : bins) b /= static_cast<double>(counts.size());
  return bins;
}

Table SamplerTable(int64_t rows, double pooling, std::vector<double> bins) {
  Table t;
  t.name = std::string("t");  // from a std::string: GCC 12's -Wrestrict misfires on "t"
  t.rows = rows;
  t.dim = 8;
  t.pooling_factor = pooling;
  t.access_bins = std::move(bins);
  return t;
}

std::vector<double> Bins(std::map<int, double> nonzero) {
  std::vector<double> bins(kNumAccessBins, 0.0);
  for (const auto& [j, v] : nonzero) bins[j] = v;
  return bins;
}

TEST(CpuLookupSamplerTest, BinRanges) {
  EXPECT_EQ(AccessBinRangeOf(0).lo, 0);
  EXPECT_EQ(AccessBinRangeOf(0).hi, 1);
  EXPECT_EQ(AccessBinRangeOf(1).lo, 1);
  EXPECT_EQ(AccessBinRangeOf(1).hi, 2);
  EXPECT_EQ(AccessBinRangeOf(3).lo, 4);
  EXPECT_EQ(AccessBinRangeOf(3).hi, 8);
  EXPECT_EQ(AccessBinRangeOf(15).hi, 32768);
  EXPECT_EQ(AccessBinRangeOf(16).lo, 32768);
}

TEST(CpuLookupSamplerTest, RecoversBinsAndPoolingFactor) {
  const std::vector<std::vector<double>> shapes = {
      Bins({{0, 0.5}, {1, 0.2}, {2, 0.15}, {4, 0.1}, {8, 0.05}}),
      Bins({{0, 0.9}, {3, 0.05}, {10, 0.05}}),
      Bins({{0, 1.0}}),
      Bins({{2, 0.3}, {5, 0.4}, {7, 0.3}}),
  };
  for (size_t s = 0; s < shapes.size(); ++s) {
    for (double pooling : {1.0, 7.5, 30.0}) {
      const Table table = SamplerTable(1000000, pooling, shapes[s]);
      std::mt19937_64 rng(s * 100 + static_cast<uint64_t>(pooling));
      const int64_t batch = 2048;
      absl::StatusOr<SampledLookups> got = SampleTableLookups(table, table.rows, batch, rng);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->offsets.size(), static_cast<size_t>(batch + 1));
      EXPECT_EQ(got->offsets.front(), 0);
      EXPECT_EQ(got->offsets.back(), static_cast<int64_t>(got->indices.size()));
      const double measured_pooling = static_cast<double>(got->indices.size()) / batch;
      EXPECT_NEAR(measured_pooling, pooling, 0.03 * pooling) << "shape " << s;
      const std::array<double, kNumAccessBins> bins = ProfileBins(got->indices);
      double l1 = 0.0;
      for (int j = 0; j < kNumAccessBins; ++j) l1 += std::abs(bins[j] - shapes[s][j]);
      // Bins are whole rows, so a batch with few distinct rows rounds coarsely.
      EXPECT_LT(l1, pooling < 5 ? 0.1 : 0.03) << "shape " << s << " pooling " << pooling;
      for (int64_t i : got->indices) ASSERT_TRUE(i >= 0 && i < table.rows);
    }
  }
}

TEST(CpuLookupSamplerTest, SmallRowsKeepPoolingFactor) {
  // 100 rows cannot hold 20480 single-access rows: counts rise, the pooling factor holds.
  const Table table = SamplerTable(100, 10.0, Bins({{0, 1.0}}));
  std::mt19937_64 rng(1);
  absl::StatusOr<SampledLookups> got = SampleTableLookups(table, table.rows, 2048, rng);
  ASSERT_TRUE(got.ok());
  EXPECT_NEAR(static_cast<double>(got->indices.size()) / 2048, 10.0, 0.3);
  for (int64_t i : got->indices) ASSERT_TRUE(i >= 0 && i < 100);
}

TEST(CpuLookupSamplerTest, DeterministicFromSeed) {
  const Table table = SamplerTable(5000, 4.0, Bins({{0, 0.6}, {3, 0.4}}));
  std::mt19937_64 a(7), b(7), c(8);
  const SampledLookups x = *SampleTableLookups(table, table.rows, 256, a);
  const SampledLookups y = *SampleTableLookups(table, table.rows, 256, b);
  const SampledLookups z = *SampleTableLookups(table, table.rows, 256, c);
  EXPECT_EQ(x.indices, y.indices);
  EXPECT_EQ(x.offsets, y.offsets);
  EXPECT_NE(x.indices, z.indices);
}

TEST(CpuLookupSamplerTest, ZeroPoolingAndNoBins) {
  std::mt19937_64 rng(0);
  const SampledLookups empty = *SampleTableLookups(SamplerTable(100, 0.0, {}), 100, 16, rng);
  EXPECT_TRUE(empty.indices.empty());
  EXPECT_EQ(empty.offsets, std::vector<int64_t>(17, 0));
  const SampledLookups uniform = *SampleTableLookups(SamplerTable(100, 3.0, {}), 100, 16, rng);
  EXPECT_EQ(uniform.indices.size(), 48u);
}

TEST(CpuLookupSamplerTest, RejectsBadInput) {
  std::mt19937_64 rng(0);
  EXPECT_FALSE(SampleTableLookups(SamplerTable(100, 1.0, {}), 0, 16, rng).ok());
  EXPECT_FALSE(SampleTableLookups(SamplerTable(100, 1.0, {}), 100, 0, rng).ok());
  EXPECT_FALSE(SampleTableLookups(SamplerTable(100, -1.0, {}), 100, 16, rng).ok());
  EXPECT_FALSE(SampleTableLookups(SamplerTable(100, 1.0, {0.5, 0.5}), 100, 16, rng).ok());
}

}  // namespace
}  // namespace shardplan
