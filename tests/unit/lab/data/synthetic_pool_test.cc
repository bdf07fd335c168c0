#include "lab/data/synthetic_pool.h"

#include <cmath>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "planner/estimators/typical_access.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

// Generated once: the pool takes a fraction of a second.
const SyntheticPool& DefaultPool() {
  static const SyntheticPool* pool = [] {
    absl::StatusOr<SyntheticPool> p = GenerateSyntheticPool(SyntheticPoolOptions{});
    EXPECT_TRUE(p.ok()) << p.status();
    return new SyntheticPool(*std::move(p));
  }();
  return *pool;
}

TEST(CostDataSyntheticPool, MatchesThePublishedRowAndPoolingStatistics) {
  const SyntheticPool& pool = DefaultPool();
  ASSERT_EQ(pool.pool.tables.size(), 856u);
  int64_t max_rows = 0, min_rows = INT64_MAX, sum_unclamped = 0, lookups = 0;
  double max_pooling = 0.0, min_pooling = 1e9;
  int empty = 0;
  for (size_t i = 0; i < pool.pool.tables.size(); ++i) {
    const Table& t = pool.pool.tables[i];
    const SyntheticTableModel& m = pool.models[i];
    max_rows = std::max(max_rows, t.rows);
    min_rows = std::min(min_rows, t.rows);
    sum_unclamped += m.rows_unclamped;
    EXPECT_EQ(t.rows, std::max<int64_t>(100, m.rows_unclamped));
    EXPECT_LE(m.active_rows, m.rows_unclamped);
    max_pooling = std::max(max_pooling, t.pooling_factor);
    min_pooling = std::min(min_pooling, t.pooling_factor);
    EXPECT_DOUBLE_EQ(t.pooling_factor * 65536, static_cast<double>(m.lookups));
    lookups += m.lookups;
    ASSERT_EQ(t.access_bins.size(), 17u);
    const double bin_sum = std::accumulate(t.access_bins.begin(), t.access_bins.end(), 0.0);
    if (m.lookups == 0) {
      ++empty;
      EXPECT_EQ(m.rows_unclamped, 1);  // max index + 1 of nothing, as the reference
      EXPECT_EQ(bin_sum, 0.0);
    } else {
      EXPECT_NEAR(bin_sum, 1.0, 1e-5) << t.name;
    }
  }
  EXPECT_EQ(max_rows, 12543670);
  EXPECT_EQ(min_rows, 100);
  EXPECT_EQ(sum_unclamped, int64_t{4107458} * 856);
  EXPECT_EQ(max_pooling, 193.0);
  EXPECT_EQ(min_pooling, 0.0);
  EXPECT_EQ(lookups, 887017990);
  EXPECT_EQ(empty, 1);
}

TEST(CostDataSyntheticPool, AggregateHistogramIsCloseToThePublishedOne) {
  const PoolAggregate pool = AggregateOf(DefaultPool());
  const PoolAggregate published = PublishedDlrm2021Aggregate();
  double l1 = 0.0;
  for (int j = 0; j < kNumAccessBins; ++j) {
    l1 += std::abs(pool.rows_histogram[j] - published.rows_histogram[j]);
  }
  EXPECT_LT(l1, 0.1);  // docs/table-pool.md reports the fitted value
  EXPECT_NEAR(pool.distinct_rows / published.distinct_rows, 1.0, 0.1);
  EXPECT_DOUBLE_EQ(pool.lookups, published.lookups);
}

TEST(CostDataSyntheticPool, DeterministicPerSeed) {
  SyntheticPoolOptions options;
  options.num_tables = 40;
  options.seed = 3;
  const std::string a = TablePoolToJsonText(GenerateSyntheticPool(options)->pool);
  EXPECT_EQ(a, TablePoolToJsonText(GenerateSyntheticPool(options)->pool));
  options.seed = 4;
  EXPECT_NE(a, TablePoolToJsonText(GenerateSyntheticPool(options)->pool));
}

TEST(CostDataSyntheticPool, ShippedPoolIsTheDefaultGeneratorOutput) {
  const std::string shipped =
      testing_files::ReadFile(std::string(SHARDPLAN_SOURCE_DIR) + "/data/table_pool/dlrm_856.json");
  ASSERT_FALSE(shipped.empty()) << "data/table_pool/dlrm_856.json is missing";
  EXPECT_EQ(shipped, TablePoolToJsonText(DefaultPool().pool))
      << "regenerate with shardplan-offline tables generate-pool --seed 0 "
         "--out data/table_pool/dlrm_856.json";
}

TEST(CostDataSyntheticPool, WritesPoolAndFitReport) {
  SyntheticPoolOptions options;
  options.num_tables = 20;
  const std::string dir = testing_files::FreshDir();
  ASSERT_TRUE(WriteSyntheticPool(options, dir + "/pool.json").ok());
  absl::StatusOr<TablePool> pool = LoadTablePool(dir + "/pool.json");
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ(pool->tables.size(), 20u);
  const nlohmann::json fit = nlohmann::json::parse(testing_files::ReadFile(dir + "/pool.fit.json"));
  EXPECT_EQ(fit["per_table"]["zipf_exponent"].size(), 20u);
  EXPECT_EQ(fit["published"]["rows_histogram"].size(), 17u);
  EXPECT_EQ(GenerateSyntheticPool({.num_tables = 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The coverage shape spreads rows and pooling factors evenly on log scales, so that tiny tables
// with high pooling (every active row hit thousands of times: the hottest bins) are common.
TEST(CostDataSyntheticPool, LogUniformShapeCoversTinyHotTables) {
  SyntheticPoolOptions options;
  options.shape = SyntheticPoolOptions::Shape::kLogUniform;
  options.seed = 5;
  options.max_rows = 100000;
  absl::StatusOr<SyntheticPool> pool = GenerateSyntheticPool(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_EQ(pool->pool.tables.size(), 856u);
  int below_1000_rows = 0, above_20_pooling = 0, hot = 0;
  for (const Table& table : pool->pool.tables) {
    EXPECT_GE(table.rows, 100);
    EXPECT_LE(table.rows, 100000);
    EXPECT_GE(table.pooling_factor, 0.1 - 1e-6);
    EXPECT_LE(table.pooling_factor, 193.0 + 1e-6);
    below_1000_rows += table.rows < 1000;
    above_20_pooling += table.pooling_factor > 20.0;
    const double hottest =
        std::accumulate(table.access_bins.begin() + 13, table.access_bins.end(), 0.0);
    hot += hottest >= 0.5;
    EXPECT_NEAR(std::accumulate(table.access_bins.begin(), table.access_bins.end(), 0.0), 1.0,
                1e-4);
  }
  // Log-uniform: a third of log10 [2, 5] lies below 3; ln(193 / 20) / ln(1930) = 0.30.
  EXPECT_NEAR(below_1000_rows / 856.0, 1.0 / 3.0, 0.06);
  EXPECT_NEAR(above_20_pooling / 856.0, 0.30, 0.06);
  EXPECT_GT(hot, 856 / 10);  // the DLRM-shaped pool has 8
  EXPECT_THAT(pool->pool.source, testing::HasSubstr("coverage"));
  EXPECT_EQ(TablePoolToJsonText(GenerateSyntheticPool(options)->pool),
            TablePoolToJsonText(pool->pool));

  options.min_pooling_factor = 500.0;
  const absl::Status bad = GenerateSyntheticPool(options).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), testing::HasSubstr("min_pooling_factor"));
}

// The synthetic pool draws around the typical table: their centres are one set of numbers.
TEST(CostDataSyntheticPool, CentreIsTheTypicalTable) {
  const TypicalAccessParams typical;
  const SyntheticPoolOptions pool;
  EXPECT_EQ(pool.batch_size, typical.batch_size);
  EXPECT_EQ(pool.active_fraction_log10_mean, typical.active_fraction_log10);
  EXPECT_EQ(pool.uniform_share_mean, typical.uniform_share);
  EXPECT_EQ(pool.zipf_exponent_mean, typical.zipf_exponent);
}

}  // namespace
}  // namespace shardplan
