#include "planner/domain/table_access.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Table MakeTable(int64_t rows) {
  return Table{.name = "t", .rows = rows, .dim = 8, .pooling_factor = 2.0};
}

std::string ErrorOf(const Table& table) {
  return std::string(ValidateAccessProfile(table, "tables[3]").message());
}

TEST(TableAccessTest, ProfilesGiveTheirCurve) {
  Table table = MakeTable(1000);
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  EXPECT_NEAR(CurveOf(table, 1).Share(0, 1000), 1.0, 1e-15);
  EXPECT_GT(CurveOf(table, 1).ShareOfRank(0), 0.1);

  Table counted = MakeTable(10);
  counted.access_profile.top_k =
      TopKAccessProfile{.top_counts = {50, 30}, .tail_count = 20, .tail_rows = 0};
  const RankFrequencyCurve curve = CurveOf(counted, 1);
  EXPECT_NEAR(curve.ShareOfRank(0), 0.5, 1e-15);
  EXPECT_NEAR(curve.ShareOfRank(1), 0.3, 1e-15);
  EXPECT_NEAR(curve.ShareOfRank(9), 0.2 / 8, 1e-15);  // the tail spread over the other 8 rows
}

TEST(TableAccessTest, WithoutAProfileTheHistogramIsAStaircase) {
  Table table = MakeTable(1'000'000);
  table.pooling_factor = 1.0;
  table.access_bins.assign(kNumAccessBins, 0.0);
  table.access_bins[0] = 0.75;  // 1 access
  table.access_bins[3] = 0.25;  // 6 accesses
  // 1000 lookups over 1000 / (0.75 + 1.5) = 444 distinct rows: 111 rows x 6, 333 x 1.
  const RankFrequencyCurve curve = CurveOf(table, 1000);
  EXPECT_NEAR(curve.Share(0, 111), 666.0 / 999, 1e-12);
  EXPECT_NEAR(curve.Share(111, 444), 333.0 / 999, 1e-12);
  EXPECT_EQ(curve.ShareOfRank(444), 0.0);
  // No histogram: uniform.
  EXPECT_NEAR(CurveOf(MakeTable(4), 1000).Share(0, 1), 0.25, 1e-15);
}

TEST(TableAccessTest, RankOrderedRowsServeTheirCurvesShare) {
  Table table = MakeTable(10'000'000);
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  EXPECT_EQ(RankOrderedShare(table, 0, 100'000), std::nullopt);  // ids are not ranks
  table.access_profile.rows_in_rank_order = true;
  ASSERT_TRUE(RankOrderedShare(table, 0, 100'000).has_value());
  EXPECT_NEAR(*RankOrderedShare(table, 0, 100'000), 0.72416, 1e-5);
  EXPECT_EQ(RankOrderedShare(MakeTable(10), 0, 5), std::nullopt);
}

TEST(TableAccessTest, ValidationNamesTheFieldAndTheReason) {
  Table table = MakeTable(10);
  EXPECT_TRUE(ValidateAccessProfile(table, "tables[3]").ok());
  table.access_profile.rows_in_rank_order = true;
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.rows_in_rank_order: needs"));

  table = MakeTable(10);
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 4.0};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.zipf.exponent: must be in"));
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0, .uniform_share = 1.5};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.zipf.uniform_share: "));
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0, .active_rows = 11};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.zipf.active_rows: "));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {1}};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile: set top_k or zipf"));

  table = MakeTable(10);
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, 6}};
  EXPECT_THAT(ErrorOf(table),
              StartsWith("tables[3].access_profile.top_k.top_counts[1]: counts are by rank"));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, -1}};
  EXPECT_THAT(ErrorOf(table), HasSubstr("top_counts[1]: must be a finite count >= 0"));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, 1}, .tail_count = 16};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.top_k.tail_count: spread"));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, 1}, .tail_rows = 9};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.top_k.tail_rows: "));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = std::vector<double>(11, 1.0)};
  EXPECT_THAT(ErrorOf(table), HasSubstr("11 counts for a table of 10 rows"));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {0, 0}};
  EXPECT_THAT(ErrorOf(table), HasSubstr("every count is 0"));
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, 1}, .tail_count = 8};
  EXPECT_TRUE(ValidateAccessProfile(table, "tables[3]").ok());
}

TEST(TableAccessTest, TopIdsAreOneDistinctRowIdPerRank) {
  Table table = MakeTable(10);
  table.access_profile.top_k = TopKAccessProfile{.top_counts = {5, 1}, .top_ids = {7}};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.top_k.top_ids: has 1 ids for "
                                         "2 top_counts"));
  table.access_profile.top_k->top_ids = {7, 10};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.top_k.top_ids[1]: must be a "
                                         "row id in [0, rows) = [0, 10), got 10"));
  table.access_profile.top_k->top_ids = {-1, 3};
  EXPECT_THAT(ErrorOf(table), StartsWith("tables[3].access_profile.top_k.top_ids[0]: "));
  table.access_profile.top_k->top_ids = {7, 7};
  EXPECT_THAT(ErrorOf(table), HasSubstr("top_ids[1]: id 7 names an earlier rank too"));
  table.access_profile.top_k->top_ids = {7, 2};
  EXPECT_TRUE(ValidateAccessProfile(table, "tables[3]").ok());
}

}  // namespace
}  // namespace shardplan
