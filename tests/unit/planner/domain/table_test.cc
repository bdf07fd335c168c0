#include "planner/domain/table.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(TableTest, ElementBytes) {
  EXPECT_EQ(ElementBytes(ElementType::kFp32), 4);
  EXPECT_EQ(ElementBytes(ElementType::kFp16), 2);
  EXPECT_EQ(ElementBytes(ElementType::kInt8), 1);
  // TorchRec's other types with a whole size (DATA_TYPE_NUM_BITS / 8).
  EXPECT_EQ(ElementBytes(ElementType::kBf16), 2);
  EXPECT_EQ(ElementBytes(ElementType::kUint8), 1);
  EXPECT_EQ(ElementBytes(ElementType::kNfp8), 1);
  EXPECT_STREQ(ElementTypeName(ElementType::kBf16), "BF16");
}

TEST(TableTest, EmptyAllowedListAllowsEverything) {
  Table table = MakeTable("t", 10, 4);
  EXPECT_TRUE(table.Allows(ShardingType::kTableWise));
  EXPECT_TRUE(table.Allows(ShardingType::kDataParallel));
}

TEST(TableTest, AllowedListRestricts) {
  Table table = MakeTable("t", 10, 4);
  table.allowed_sharding_types = {ShardingType::kColumnWise, ShardingType::kRowWise};
  EXPECT_FALSE(table.Allows(ShardingType::kTableWise));
  EXPECT_TRUE(table.Allows(ShardingType::kColumnWise));
  EXPECT_TRUE(table.Allows(ShardingType::kRowWise));
  EXPECT_FALSE(table.Allows(ShardingType::kDataParallel));
}

TEST(EnumNamesTest, MatchTheProto) {
  EXPECT_STREQ(ShardingTypeName(ShardingType::kTableWise), "TABLE_WISE");
  EXPECT_STREQ(ShardingTypeName(ShardingType::kColumnWise), "COLUMN_WISE");
  EXPECT_STREQ(ShardingTypeName(ShardingType::kRowWise), "ROW_WISE");
  EXPECT_STREQ(ShardingTypeName(ShardingType::kDataParallel), "DATA_PARALLEL");
  EXPECT_STREQ(ElementTypeName(ElementType::kFp32), "FP32");
  EXPECT_STREQ(ElementTypeName(ElementType::kFp16), "FP16");
  EXPECT_STREQ(ElementTypeName(ElementType::kInt8), "INT8");
}

}  // namespace
}  // namespace shardplan
