// Tables larger than every device: which sharding types hold them, and the refusal that names
// what is missing (the table excludes the type, the algorithm does not place it, the model
// cannot cost it).

#include "planner/framework/oversized_tables.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using test::TableOfBytes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr ShardingType kTw = ShardingType::kTableWise;
constexpr ShardingType kCw = ShardingType::kColumnWise;
constexpr ShardingType kRw = ShardingType::kRowWise;
constexpr ShardingType kTwrw = ShardingType::kTableRowWise;
constexpr ShardingType kDp = ShardingType::kDataParallel;

// A model of every sharding type (analytic@1's reach).
class EveryTypeModel : public test::FakeCostModel {
 public:
  std::string id() const override { return "every@1"; }
  bool CostsShardingType(ShardingType) const override { return true; }
};

AlgorithmInfo Placing(std::string name, std::vector<ShardingType> types) {
  AlgorithmInfo info;
  info.name = std::move(name);
  info.sharding_types = std::move(types);
  return info;
}

// The README's task: a 30 GiB dim-4 table (2013265920 rows of 16 bytes) and a small one on
// eight 16 GiB devices of one host.
Task HugeTableTask() {
  return test::MakeTask({MakeTable("small", 1000, 16), TableOfBytes("huge", 30 * kGiB, 4)}, 8,
                        16 * kGiB);
}

TEST(OversizedTablesTest, OnlyRowShardsHoldANarrowTableLargerThanEveryDevice) {
  const Task task = HugeTableTask();
  EXPECT_EQ(task.tables[1].rows, 2013265920);
  const std::vector<OversizedTable> oversized = OversizedTables(task);
  ASSERT_EQ(oversized.size(), 1u);
  EXPECT_EQ(oversized[0].index, 1u);
  EXPECT_EQ(oversized[0].bytes, 30 * kGiB);
  EXPECT_EQ(oversized[0].largest_device_bytes, 16 * kGiB);
  // Four columns cannot be split into narrower column shards.
  EXPECT_THAT(oversized[0].holders, ElementsAre(kRw, kTwrw));
}

TEST(OversizedTablesTest, ColumnShardsHoldAWideTableWhoseNarrowestSliceFits) {
  // 40 GiB at dim 64: a 4-column slice is 2.5 GiB.
  Task task = test::MakeTask({TableOfBytes("wide", 40 * kGiB, 64)}, 8, 16 * kGiB);
  EXPECT_THAT(OversizedTables(task)[0].holders, ElementsAre(kCw, kRw, kTwrw));
  // Two hosts of four: 70 GiB fits the eight devices but no host's four (64 GiB).
  task = test::MakeTask({TableOfBytes("wider", 70 * kGiB, 4)}, 8, 16 * kGiB);
  task.topology.devices_per_host = 4;
  EXPECT_THAT(OversizedTables(task)[0].holders, ElementsAre(kRw));
  // Tables that fit a device are not oversized.
  EXPECT_THAT(OversizedTables(test::MakeTask({TableOfBytes("t", 16 * kGiB)}, 2, 16 * kGiB)),
              IsEmpty());
}

TEST(OversizedTablesTest, AnAlgorithmThatPlacesNoHolderIsRefusedNamingWhatItPlaces) {
  const Task task = HugeTableTask();
  const absl::Status status = CheckOversizedTables(Placing("columns", {kTw, kCw}), nullptr, task);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "task is infeasible for columns: table \"huge\" needs 30.00 GiB but the largest "
            "device (device 0) holds 16.00 GiB; only ROW_WISE or TABLE_ROW_WISE shards would "
            "hold it, and columns does not place ROW_WISE or TABLE_ROW_WISE shards (it places "
            "TABLE_WISE, COLUMN_WISE)");
}

TEST(OversizedTablesTest, AModelThatCannotCostTheHoldersIsNamed) {
  const Task task = HugeTableTask();
  const AlgorithmInfo rows = Placing("rows", {kTw, kCw, kRw, kTwrw, kDp});
  const test::FakeCostModel column_level;  // fake@1: TABLE_WISE and COLUMN_WISE only
  const absl::Status status = CheckOversizedTables(rows, &column_level, task);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("only ROW_WISE or TABLE_ROW_WISE shards would hold it, and cost model "
                        "fake@1 cannot cost ROW_WISE or TABLE_ROW_WISE shards"));
  const EveryTypeModel every;
  EXPECT_TRUE(CheckOversizedTables(rows, &every, task).ok());
  EXPECT_TRUE(CheckOversizedTables(rows, nullptr, task).ok());  // whatever model
  EXPECT_THAT(UsableHolders(OversizedTables(task)[0], task, rows, &every), ElementsAre(kRw, kTwrw));
  EXPECT_THAT(UsableHolders(OversizedTables(task)[0], task, rows, &column_level), IsEmpty());
}

TEST(OversizedTablesTest, ATablesOwnExclusionIsNamedWithTheTypesItAllows) {
  Task task = HugeTableTask();
  task.tables[1].allowed_sharding_types = {kTw, kRw};
  const AlgorithmInfo rows = Placing("rows", {kTw, kCw, kRw, kTwrw, kDp});
  const EveryTypeModel every;
  EXPECT_TRUE(CheckOversizedTables(rows, &every, task).ok());  // ROW_WISE is allowed
  task.tables[1].allowed_sharding_types = {kTw};
  const absl::Status status = CheckOversizedTables(rows, &every, task);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("; only ROW_WISE or TABLE_ROW_WISE shards would hold it, and "
                        "tables[1].allowed_sharding_types excludes ROW_WISE, TABLE_ROW_WISE (it "
                        "allows TABLE_WISE)"));
  // Every reason at once: the table excludes one holder, the algorithm places not the other.
  task.tables[1].allowed_sharding_types = {kTw, kTwrw};
  EXPECT_THAT(CheckOversizedTables(Placing("rw_only", {kTw, kRw}), &every, task).message(),
              HasSubstr("and tables[1].allowed_sharding_types excludes ROW_WISE (it allows "
                        "TABLE_WISE, TABLE_ROW_WISE); rw_only does not place TABLE_ROW_WISE "
                        "shards (it places TABLE_WISE, ROW_WISE)"));
}

TEST(OversizedTablesTest, TasksWithoutOversizedTablesPass) {
  const Task task = test::MakeTask({MakeTable("a", 100, 8)}, 2, kGiB);
  EXPECT_TRUE(CheckOversizedTables(Placing("whole", {kTw}), nullptr, task).ok());
}

}  // namespace
}  // namespace shardplan
