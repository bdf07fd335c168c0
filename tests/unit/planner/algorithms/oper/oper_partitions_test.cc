#include "planner/algorithms/oper/oper_partitions.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/table_access.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::oper {
namespace {

// Ten rows of 16 bytes (dim 4, fp32) whose lookups per device are, by rank, the counts below
// (100 in all).
Table CountedTable(const std::string& name) {
  Table table = test::MakeTable(name, 10, 4);
  table.access_profile.top_k =
      TopKAccessProfile{.top_counts = {40, 20, 10, 10, 5, 5, 4, 3, 2, 1}, .tail_count = 0};
  return table;
}

struct Bounds {
  int64_t begin;
  int64_t end;
  PartitionBound bound;
};

std::vector<Bounds> BoundsOf(const std::vector<Partition>& partitions) {
  std::vector<Bounds> out;
  for (const Partition& p : partitions) out.push_back({p.rank_begin, p.rank_end, p.bound});
  return out;
}

MATCHER_P3(IsBounds, begin, end, bound, "") {
  return arg.begin == begin && arg.end == end && arg.bound == bound;
}

TEST(OperPartitionsTest, CutsRanksAtTheAccessAndMemoryBoundsByHand) {
  const Table table = CountedTable("t");
  const RankFrequencyCurve curve = CurveOf(table, 1);
  // Threshold 0.26: at most 26 lookups (of 100) and 41.6 bytes (of 160), i.e. 2 rows.
  const std::vector<Partition> partitions = PartitionTables(
      {{.table = &table, .curve = &curve, .lookups_per_device = 100}}, MemoryOptions{}, 0.26);
  using B = PartitionBound;
  // [0,1): 40 alone (hotter than the bound); [1,2): 20 + 10 > 26; [2,4): 10 + 10 + 5 <= 26 but
  // 3 rows > 2; then 2-row memory partitions; the last ends with the table, closer to its
  // memory bound (2 of 2 rows) than to its access bound (3 of 26).
  EXPECT_THAT(BoundsOf(partitions),
              ::testing::ElementsAre(IsBounds(0, 1, B::kAccess), IsBounds(1, 2, B::kAccess),
                                     IsBounds(2, 4, B::kMemory), IsBounds(4, 6, B::kMemory),
                                     IsBounds(6, 8, B::kMemory), IsBounds(8, 10, B::kMemory)));
  const double expected_lookups[] = {40, 20, 20, 10, 7, 3};
  for (size_t p = 0; p < partitions.size(); ++p) {
    EXPECT_NEAR(partitions[p].lookups, expected_lookups[p], 1e-9) << p;
    EXPECT_EQ(partitions[p].bytes, partitions[p].rows() * 16) << p;
    EXPECT_EQ(partitions[p].fetch_bytes, 16);
    EXPECT_EQ(partitions[p].table, 0);
  }
}

TEST(OperPartitionsTest, BoundsAreSharesOfAllTablesAndPartitionsStayInTheirTable) {
  const Table hot = CountedTable("hot");
  const Table cold = test::MakeTable("cold", 30, 4);  // uniform, 480 bytes
  const RankFrequencyCurve hot_curve = CurveOf(hot, 1);
  const RankFrequencyCurve cold_curve = CurveOf(cold, 1);
  // 200 lookups and 640 bytes in all; threshold 0.22: 44 lookups, 140.8 bytes (8 rows).
  const std::vector<Partition> partitions =
      PartitionTables({{.table = &hot, .curve = &hot_curve, .lookups_per_device = 100},
                       {.table = &cold, .curve = &cold_curve, .lookups_per_device = 100}},
                      MemoryOptions{}, 0.22);
  using B = PartitionBound;
  // hot: 40; 20 + 10 + 10 (+ 5 > 44); then 20 lookups in 6 rows to the table's end (6/8 of the
  // memory bound, 20/44 of the access one: memory). cold: 100/30 per row, so 8 rows (26.7
  // lookups) close on memory, and its last 6 rows end with it.
  EXPECT_THAT(BoundsOf(partitions),
              ::testing::ElementsAre(IsBounds(0, 1, B::kAccess), IsBounds(1, 4, B::kAccess),
                                     IsBounds(4, 10, B::kMemory), IsBounds(0, 8, B::kMemory),
                                     IsBounds(8, 16, B::kMemory), IsBounds(16, 24, B::kMemory),
                                     IsBounds(24, 30, B::kMemory)));
  EXPECT_EQ(partitions[3].table, 1);
  for (const Partition& p : partitions) {
    EXPECT_TRUE(p.rows() == 1 || p.lookups <= 44.0);
    EXPECT_LE(p.bytes, 140);
  }
}

TEST(OperPartitionsTest, ASkewedTableGivesFewHotPartitionsMostLookups) {
  Table table = test::MakeTable("zipf", 1'000'000, 16);
  table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.05};
  const RankFrequencyCurve curve = CurveOf(table, 1);
  const std::vector<Partition> partitions = PartitionTables(
      {{.table = &table, .curve = &curve, .lookups_per_device = 1000}}, MemoryOptions{}, 0.001);
  double access_lookups = 0.0;
  int64_t access_rows = 0;
  int64_t next = 0;
  for (const Partition& p : partitions) {
    EXPECT_EQ(p.rank_begin, next);  // the partitions tile the ranks
    next = p.rank_end;
    if (p.bound == PartitionBound::kAccess) {
      access_lookups += p.lookups;
      access_rows += p.rows();
    }
  }
  EXPECT_EQ(next, table.rows);
  // The paper's observation: access-bounded partitions hold most lookups in little memory.
  EXPECT_GT(access_lookups, 0.6 * 1000);
  EXPECT_LT(access_rows, table.rows / 10);
}

}  // namespace
}  // namespace shardplan::oper
