#include "groundtruth/sim/access_model.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

double Accesses(const std::vector<AccessClass>& classes) {
  double total = 0.0;
  for (const AccessClass& c : classes) total += c.rows * c.count;
  return total;
}

double Rows(const std::vector<AccessClass>& classes) {
  double total = 0.0;
  for (const AccessClass& c : classes) total += c.rows;
  return total;
}

Table WithBins(int64_t rows, std::vector<double> bins) {
  Table t;
  t.rows = rows;
  t.dim = 16;
  t.access_bins = std::move(bins);
  t.access_bins.resize(kNumAccessBins, 0.0);
  return t;
}

TEST(SimAccessModelTest, BinCountsAreTheMiddleOfEachBin) {
  EXPECT_DOUBLE_EQ(BinAccessCount(0), 1.0);
  EXPECT_DOUBLE_EQ(BinAccessCount(1), 1.5);  // (1, 2]
  EXPECT_DOUBLE_EQ(BinAccessCount(3), 6.0);  // (4, 8]
  EXPECT_DOUBLE_EQ(BinAccessCount(16), 49152.0);
}

TEST(SimAccessModelTest, HandComputedHistogram) {
  // Half the distinct rows accessed once, half 6 times: mean count 3.5.
  const Table t = WithBins(1'000'000, {0.5, 0.0, 0.0, 0.5});
  const std::vector<AccessClass> classes = AccessClasses(t, 7000.0);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_DOUBLE_EQ(classes[0].count, 6.0);  // hottest first
  EXPECT_DOUBLE_EQ(classes[0].rows, 1000.0);
  EXPECT_DOUBLE_EQ(classes[1].count, 1.0);
  EXPECT_DOUBLE_EQ(classes[1].rows, 1000.0);
}

TEST(SimAccessModelTest, DistinctRowsAreCappedByTheTableAndCountsScaleUp) {
  const Table t = WithBins(100, {1.0});
  const std::vector<AccessClass> classes = AccessClasses(t, 1000.0);
  EXPECT_DOUBLE_EQ(Rows(classes), 100.0);
  EXPECT_DOUBLE_EQ(Accesses(classes), 1000.0);
}

TEST(SimAccessModelTest, WithoutHistogramLookupsAreUniform) {
  Table t;
  t.rows = 1000;
  const std::vector<AccessClass> classes = AccessClasses(t, 1000.0);
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_NEAR(classes[0].rows, 1000.0 * (1.0 - std::exp(-1.0)), 1e-9);
  EXPECT_NEAR(Accesses(classes), 1000.0, 1e-9);
}

TEST(SimAccessModelTest, AccountsForEveryLookup) {
  const Table t = WithBins(5'000'000, {0.47, 0.15, 0.14, 0.11, 0.07, 0.03, 0.01, 0.005, 0.002,
                                       0.001, 0.0005, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0001});
  for (double lookups : {0.5, 10.0, 65536.0 * 15, 1e9}) {
    EXPECT_NEAR(Accesses(AccessClasses(t, lookups)), lookups, lookups * 1e-12);
  }
  EXPECT_TRUE(AccessClasses(t, 0.0).empty());
}

}  // namespace
}  // namespace shardplan
