#include "planner/domain/row_shard_map.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

std::vector<RowSpaceTable> TwoTables() {
  return {{.name = "users", .rows = 4, .row_bytes = 64},
          {.name = "items", .rows = 3, .row_bytes = 128}};
}

TEST(RowShardMapTest, PacksKeysByTableAndRow) {
  const uint64_t key = PackRowKey(3, 123456789);
  EXPECT_EQ(TableOfKey(key), 3);
  EXPECT_EQ(RowOfKey(key), 123456789);
  EXPECT_LT(PackRowKey(0, kMaxRowKeyRows - 1), PackRowKey(1, 0));
}

TEST(RowShardMapTest, RefusesBadTablesNamingTheField) {
  EXPECT_THAT(RowShardMap::Create(TwoTables(), 0).status().message(), HasSubstr("shards"));
  std::vector<RowSpaceTable> tables = TwoTables();
  tables[1].rows = 0;
  EXPECT_THAT(RowShardMap::Create(tables, 2).status().message(), HasSubstr("tables[1].rows"));
  tables = TwoTables();
  tables[0].row_bytes = 0;
  EXPECT_THAT(RowShardMap::Create(tables, 2).status().message(), HasSubstr("tables[0].row_bytes"));
  tables = TwoTables();
  tables[0].name.clear();
  EXPECT_THAT(RowShardMap::Create(tables, 2).status().message(), HasSubstr("tables[0].name"));
  EXPECT_THAT(RowShardMap::Create({}, 2).status().message(), HasSubstr("tables"));
}

TEST(RowShardMapTest, SummarisesRowsBytesAndUnplacedRows) {
  RowShardMap map = *RowShardMap::Create(TwoTables(), 2);
  map.Assign(PackRowKey(0, 0), 0);
  map.Assign(PackRowKey(0, 1), 1);
  map.Assign(PackRowKey(0, 2), 1);
  map.Assign(PackRowKey(1, 0), 1);
  const RowShardMapSummary summary = SummarizeRowShardMap(map);
  EXPECT_EQ(summary.rows, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(summary.bytes, (std::vector<int64_t>{64, 2 * 64 + 128}));
  EXPECT_EQ(summary.unassigned_rows, 3);
  EXPECT_DOUBLE_EQ(summary.row_imbalance, 3.0 / 2.0);
  EXPECT_EQ(map.MemoryBytes(), 7 * 2);
  EXPECT_TRUE(map.Contains(PackRowKey(1, 2)));
  EXPECT_FALSE(map.Contains(PackRowKey(1, 3)));
  EXPECT_FALSE(map.Contains(PackRowKey(2, 0)));
}

TEST(RowShardMapTest, DeltaCountsMovesBytesAndFirstPlacements) {
  RowShardMap before = *RowShardMap::Create(TwoTables(), 3, 0);
  before.Assign(PackRowKey(1, 2), kUnassignedShard);
  RowShardMap after = before;
  after.Assign(PackRowKey(0, 1), 2);
  after.Assign(PackRowKey(1, 0), 1);
  after.Assign(PackRowKey(1, 2), 2);  // first placement: not a move
  const absl::StatusOr<RowShardMapDelta> delta = DiffRowShardMaps(before, after, true);
  ASSERT_TRUE(delta.ok()) << delta.status();
  EXPECT_EQ(delta->rows_moved, 2);
  EXPECT_EQ(delta->bytes_moved, 64 + 128);
  EXPECT_EQ(delta->rows_placed, 1);
  EXPECT_EQ(delta->from_to[0][2], 1);
  EXPECT_EQ(delta->from_to[0][1], 1);
  ASSERT_EQ(delta->moves.size(), 2u);
  EXPECT_EQ(delta->moves[0].key, PackRowKey(0, 1));
  EXPECT_EQ(delta->moves[1].to, 1);
  EXPECT_FALSE(before.SamePlacementAs(after));
}

TEST(RowShardMapTest, DeltaRefusesMapsOfOtherTables) {
  const RowShardMap a = *RowShardMap::Create(TwoTables(), 2, 0);
  std::vector<RowSpaceTable> other = TwoTables();
  other[1].rows = 5;
  const RowShardMap b = *RowShardMap::Create(other, 2, 0);
  EXPECT_THAT(DiffRowShardMaps(a, b, false).status().message(), HasSubstr("tables[1]"));
  const RowShardMap c = *RowShardMap::Create(TwoTables(), 3, 0);
  EXPECT_THAT(DiffRowShardMaps(a, c, false).status().message(), HasSubstr("shards"));
}

}  // namespace
}  // namespace shardplan
