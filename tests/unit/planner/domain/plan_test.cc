#include "planner/domain/plan.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(TableWisePlanTest, OneWholeShardPerTable) {
  Task task = test::MakeTask({MakeTable("a", 100, 16), MakeTable("b", 7, 8)}, 2, kGiB);
  const Plan plan = TableWisePlan(task, {1, 0});
  ASSERT_EQ(plan.tables.size(), 2u);
  EXPECT_EQ(plan.tables[0].table, "a");
  EXPECT_EQ(plan.tables[0].sharding_type, ShardingType::kTableWise);
  ASSERT_EQ(plan.tables[0].shards.size(), 1u);
  const Shard& shard = plan.tables[0].shards[0];
  EXPECT_EQ(shard.device, 1);
  EXPECT_EQ(shard.row_offset, 0);
  EXPECT_EQ(shard.row_count, 100);
  EXPECT_EQ(shard.column_offset, 0);
  EXPECT_EQ(shard.column_count, 16);
  EXPECT_EQ(plan.tables[1].shards[0].device, 0);
  EXPECT_EQ(plan.tables[1].shards[0].row_count, 7);
  EXPECT_EQ(plan.tables[1].shards[0].column_count, 8);
  EXPECT_TRUE(plan.devices.empty());
}

}  // namespace
}  // namespace shardplan
