#include "costmodels/neural/table_features.h"

#include <array>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

Table HandBuiltTable() {
  Table table;
  table.name = std::string("t");
  table.rows = 123456;
  table.dim = 64;
  table.pooling_factor = 7.5;
  // bin j holds 0.01 * (j + 1): each value names its bin.
  for (int j = 0; j < kNumAccessBins; ++j) table.access_bins.push_back(0.01 * (j + 1));
  return table;
}

TEST(TableFeatureNamesTest, AreTheSortedKeysOfTheReference) {
  std::vector<std::string> keys;
  for (int j = 0; j < kNumAccessBins; ++j) keys.push_back("bin_" + std::to_string(j));
  keys.push_back("dim");
  keys.push_back("pooling_factor");
  keys.push_back("row");
  std::sort(keys.begin(), keys.end());  // Python's sorted() on the dict's keys
  ASSERT_EQ(keys.size(), static_cast<size_t>(kNumTableFeatures));
  for (int p = 0; p < kNumTableFeatures; ++p) EXPECT_EQ(TableFeatureNames()[p], keys[p]) << p;
  EXPECT_EQ(TableFeatureNames()[2], "bin_10");
  EXPECT_EQ(TableFeatureNames()[9], "bin_2");
}

TEST(TableFeaturesTest, ReferenceOrderOnAHandBuiltTable) {
  std::array<float, kNumTableFeatures> f;
  TableFeatures(HandBuiltTable(), /*dim=*/32, f);
  const std::array<int, 17> bins = {0, 1, 10, 11, 12, 13, 14, 15, 16, 2, 3, 4, 5, 6, 7, 8, 9};
  for (int p = 0; p < 17; ++p) EXPECT_FLOAT_EQ(f[p], 0.01f * (bins[p] + 1)) << p;
  EXPECT_FLOAT_EQ(f[17], 32.0f);      // dim: the shard's columns, not the table's dim
  EXPECT_FLOAT_EQ(f[18], 7.5f);       // pooling_factor, raw
  EXPECT_FLOAT_EQ(f[19], 123456.0f);  // row, raw
}

TEST(TableFeaturesTest, EmptyHistogramGivesZeroBins) {
  Table table = HandBuiltTable();
  table.access_bins.clear();
  std::array<float, kNumTableFeatures> f;
  f.fill(-1.0f);
  TableFeatures(table, 16, f);
  for (int p = 0; p < 17; ++p) EXPECT_EQ(f[p], 0.0f) << p;
  EXPECT_FLOAT_EQ(f[17], 16.0f);
}

TEST(FeatureTransformTest, LogTakesLogsOfRowsAndPoolingFactorOnly) {
  std::array<float, kNumTableFeatures> row;
  for (int f = 0; f < kNumTableFeatures; ++f) row[f] = 0.25f * f;
  row[18] = 55.0f;    // pooling_factor
  row[19] = 4739.0f;  // row
  std::array<float, kNumTableFeatures> raw = row;
  TransformFeatures(FeatureTransform::kRaw, raw);
  EXPECT_EQ(raw, row);
  std::array<float, kNumTableFeatures> logged = row;
  TransformFeatures(FeatureTransform::kLog, logged);
  for (int f = 0; f < 18; ++f) EXPECT_EQ(logged[f], row[f]) << f;  // bins and dim unchanged
  EXPECT_FLOAT_EQ(logged[18], std::log1p(55.0f));
  EXPECT_FLOAT_EQ(logged[19], std::log10(4739.0f));
  // Degenerate inputs stay finite: no rows, no lookups.
  row[18] = 0.0f;
  row[19] = 0.0f;
  TransformFeatures(FeatureTransform::kLog, row);
  EXPECT_EQ(row[18], 0.0f);
  EXPECT_EQ(row[19], 0.0f);
  FeatureTransform parsed = FeatureTransform::kRaw;
  EXPECT_TRUE(ParseFeatureTransform("log", &parsed));
  EXPECT_EQ(parsed, FeatureTransform::kLog);
  EXPECT_STREQ(FeatureTransformName(parsed), "log");
  EXPECT_FALSE(ParseFeatureTransform("sqrt", &parsed));
}

TEST(TableFeatureRangeTest, RangeOfRowsAndWhatLiesOutside) {
  // Two rows: the hand-built table at dims 16 and 64.
  std::vector<float> rows(2 * kNumTableFeatures);
  TableFeatures(HandBuiltTable(), 16, std::span<float, kNumTableFeatures>(rows.data(), 20));
  TableFeatures(HandBuiltTable(), 64, std::span<float, kNumTableFeatures>(rows.data() + 20, 20));
  const TableFeatureRange range = RangeOfFeatures(rows);
  EXPECT_DOUBLE_EQ(range.min[17], 16.0);
  EXPECT_DOUBLE_EQ(range.max[17], 64.0);
  EXPECT_DOUBLE_EQ(range.min[19], 123456.0);
  EXPECT_DOUBLE_EQ(range.max[19], 123456.0);

  // Inside: nothing to say.
  EXPECT_TRUE(FeaturesOutsideRange(HandBuiltTable(), 32, range).empty());
  // Dim 128 (one range width above) and 4 times the rows (far above): the farthest first.
  Table big = HandBuiltTable();
  big.rows = 4 * 123456;
  const std::vector<std::string> outside = FeaturesOutsideRange(big, 128, range);
  ASSERT_EQ(outside.size(), 2u);
  EXPECT_EQ(outside[0], "row 493824 (trained on 123456 to 123456)");
  EXPECT_EQ(outside[1], "dim 128 (trained on 16 to 64)");
  EXPECT_EQ(FeaturesOutsideRange(big, 128, range, /*limit=*/1).size(), 1u);
  // A hot bin the data never held.
  Table hot = HandBuiltTable();
  hot.access_bins.assign(kNumAccessBins, 0.0);
  hot.access_bins[15] = 1.0;
  const std::vector<std::string> hot_outside = FeaturesOutsideRange(hot, 32, range);
  ASSERT_FALSE(hot_outside.empty());
  EXPECT_EQ(hot_outside[0], "bin_15 1 (trained on 0.16 to 0.16)");
  // A range of the wrong size knows nothing.
  EXPECT_TRUE(FeaturesOutsideRange(big, 128, TableFeatureRange{}).empty());
}

TEST(FeatureNormalizerTest, ZScoreWithEpsilonOnTheStd) {
  auto normalizer = FeatureNormalizer::Create({1.0, -2.0, 0.5}, {2.0, 0.5, 0.0});
  ASSERT_TRUE(normalizer.ok()) << normalizer.status();
  std::vector<float> x = {5.0f, 1.0f, 0.5f};
  normalizer->Apply(x);
  EXPECT_NEAR(x[0], (5.0 - 1.0) / (2.0 + 1e-6), 1e-6);
  EXPECT_NEAR(x[1], (1.0 + 2.0) / (0.5 + 1e-6), 1e-5);
  EXPECT_EQ(x[2], 0.0f);  // a constant feature: std 0 divides by 1e-6, x == mean gives 0
}

TEST(FeatureNormalizerTest, NormalisesTableFeatures) {
  std::vector<double> means(kNumTableFeatures), stds(kNumTableFeatures);
  for (int i = 0; i < kNumTableFeatures; ++i) {
    means[i] = 0.1 * i;
    stds[i] = 1.0 + i;
  }
  auto normalizer = FeatureNormalizer::Create(means, stds);
  ASSERT_TRUE(normalizer.ok());
  std::array<float, kNumTableFeatures> f;
  TableFeatures(HandBuiltTable(), 64, f);
  std::array<float, kNumTableFeatures> raw = f;
  normalizer->Apply(f);
  for (int i = 0; i < kNumTableFeatures; ++i) {
    const double expected = (raw[i] - means[i]) / (stds[i] + 1e-6);
    EXPECT_NEAR(f[i], expected, 1e-5 * std::max(1.0, std::abs(expected))) << i;
  }
}

TEST(FeatureNormalizerTest, RejectsBadStatistics) {
  EXPECT_EQ(FeatureNormalizer::Create({}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FeatureNormalizer::Create({1.0}, {1.0, 2.0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FeatureNormalizer::Create({1.0}, {-1.0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
TEST(ServedShardFeaturesTest, TableAndColumnWiseShardsReduceToTheTableFeatures) {
  const Table table = HandBuiltTable();
  for (ShardingType type : {ShardingType::kTableWise, ShardingType::kColumnWise}) {
    const ShardView shard{.table = &table, .rows = table.rows, .columns = 16, .sharding = type};
    std::array<float, kNumServedFeatures> served;
    ServedShardFeatures(shard, served);
    std::array<float, kNumTableFeatures> reference;
    TableFeatures(table, 16, reference);
    for (int p = 0; p < kNumTableFeatures; ++p) EXPECT_EQ(served[p], reference[p]) << p;
    EXPECT_EQ(served[kNumTableFeatures], 1.0f);
  }
}

TEST(ServedShardFeaturesTest, ARowWiseShardOfNServesOneNthOfTheLookups) {
  const Table table = HandBuiltTable();
  for (ShardingType type : {ShardingType::kRowWise, ShardingType::kTableRowWise}) {
    const ShardView shard{.table = &table,
                          .rows = 30864,
                          .columns = 64,
                          .sharding = type,
                          .group_size = 4,
                          .row_offset = 30864};
    std::array<float, kNumServedFeatures> f;
    ServedShardFeatures(shard, f);
    EXPECT_FLOAT_EQ(f[18], 7.5f / 4);  // pooling_factor: lookups per (whole-batch) sample
    EXPECT_EQ(f[19], 30864.0f);        // row: the rows it holds
    EXPECT_EQ(f[17], 64.0f);
    EXPECT_EQ(f[kNumTableFeatures], 1.0f);  // partial sums for the whole batch
    EXPECT_FLOAT_EQ(f[0], 0.01f);           // its table's access classes
  }
}

TEST(ServedShardFeaturesTest, ADataParallelReplicaServesItsSliceOfTheBatch) {
  const Table table = HandBuiltTable();
  const ShardView replica{.table = &table,
                          .rows = table.rows,
                          .columns = 64,
                          .sharding = ShardingType::kDataParallel,
                          .group_size = 8};
  std::array<float, kNumServedFeatures> f;
  ServedShardFeatures(replica, f);
  EXPECT_FLOAT_EQ(f[kNumTableFeatures], 1.0f / 8);
  EXPECT_FLOAT_EQ(f[18], 7.5f);  // every lookup of each sample it serves
  EXPECT_EQ(f[19], 123456.0f);
}

TEST(ShardFeatureSetTest, NamesAndCounts) {
  EXPECT_EQ(NumShardFeatures(ShardFeatureSet::kReference), kNumTableFeatures);
  EXPECT_EQ(NumShardFeatures(ShardFeatureSet::kServed), kNumTableFeatures + 1);
  EXPECT_EQ(ShardFeatureNames(ShardFeatureSet::kReference).size(), 20u);
  EXPECT_EQ(ShardFeatureNames(ShardFeatureSet::kServed).back(), "batch_share");
  ShardFeatureSet set = ShardFeatureSet::kReference;
  EXPECT_TRUE(ParseShardFeatureSet("served", &set));
  EXPECT_EQ(set, ShardFeatureSet::kServed);
  EXPECT_STREQ(ShardFeatureSetName(set), "served");
  EXPECT_FALSE(ParseShardFeatureSet("rows", &set));
  EXPECT_EQ(set, ShardFeatureSet::kServed);
}

}  // namespace shardplan
