#include "wire/plan_proto.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/support/task_protos.h"

namespace shardplan::wire {
namespace {

using test_support::SmallTaskProto;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(PlanShardsFromProtoTest, ReadsShardsOnly) {
  v1::Plan proto;
  v1::TableSharding* table = proto.add_tables();
  table->set_table("t0");
  table->set_sharding_type(v1::COLUMN_WISE);
  for (int i = 0; i < 2; ++i) {
    v1::Shard* shard = table->add_shards();
    shard->set_device(i);
    shard->set_row_count(1000);
    shard->set_column_offset(4 * i);
    shard->set_column_count(4);
  }
  proto.set_cost_ms(123);  // ignored: figures are recomputed
  absl::StatusOr<Plan> plan = PlanShardsFromProto(proto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tables.size(), 1u);
  EXPECT_EQ(plan->tables[0].sharding_type, ShardingType::kColumnWise);
  ASSERT_EQ(plan->tables[0].shards.size(), 2u);
  EXPECT_EQ(plan->tables[0].shards[1].device, 1);
  EXPECT_EQ(plan->tables[0].shards[1].column_offset, 4);
  EXPECT_EQ(plan->cost_ms, 0);
}
TEST(PlanShardsFromProtoTest, ErrorsNameTheField) {
  v1::Plan proto;
  proto.add_tables()->set_table("t0");
  absl::Status status = PlanShardsFromProto(proto).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("plan.tables[0].sharding_type: "));

  proto.mutable_tables(0)->set_sharding_type(v1::TABLE_WISE);
  status = PlanShardsFromProto(proto).status();
  EXPECT_THAT(std::string(status.message()), StartsWith("plan.tables[0].shards: "));
}
TEST(PlanToProtoTest, CopiesEveryFigure) {
  Plan plan;
  plan.tables.push_back({"t0", ShardingType::kTableWise, {Shard{1, 0, 10, 0, 8}}});
  plan.devices.push_back(DeviceCost{0, 1, 2, 3, 4, 5.0, 6.0, 7.0, 18.0});
  plan.cost_ms = 18;
  plan.bottleneck_device = 0;
  plan.algorithm = "size_greedy";
  plan.parameters = {{"a", "1"}};
  plan.seed = 99;
  plan.cost_model = "analytic@1";
  plan.stats.column_splits = {"t0"};
  plan.stats.candidates_evaluated = 12;
  plan.stats.anytime_result = true;
  v1::Plan proto;
  proto = PlanToProto(plan);
  ASSERT_EQ(proto.tables_size(), 1);
  EXPECT_EQ(proto.tables(0).sharding_type(), v1::TABLE_WISE);
  EXPECT_EQ(proto.tables(0).shards(0).device(), 1);
  EXPECT_EQ(proto.tables(0).shards(0).row_count(), 10);
  EXPECT_EQ(proto.devices(0).compute_ms(), 5.0);
  EXPECT_EQ(proto.devices(0).total_ms(), 18.0);
  EXPECT_EQ(proto.cost_ms(), 18);
  EXPECT_EQ(proto.parameters().at("a"), "1");
  EXPECT_EQ(proto.seed(), 99u);
  EXPECT_EQ(proto.cost_model(), "analytic@1");
  EXPECT_EQ(proto.cost_kind(), "simulated");
  EXPECT_EQ(proto.column_splits(0), "t0");
  EXPECT_EQ(proto.stats().candidates_evaluated(), 12);
  EXPECT_TRUE(proto.stats().anytime_result());

  // And back: the shards survive the round trip.
  absl::StatusOr<Plan> back = PlanShardsFromProto(proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tables[0].shards[0].row_count, 10);
}

// A row layout beyond the default travels as TableSharding.row_layout, ranges and routes only;
// a default one writes nothing, so that plans from before row layouts read and write as they did.
TEST(PlanToProtoTest, RowLayoutOnlyWhenItIsNotTheDefault) {
  Plan plan;
  TableSharding hot;
  hot.table = "t";
  hot.sharding_type = ShardingType::kRowWise;
  hot.row_order = RowOrder::kFrequencyRank;
  for (int32_t d = 0; d < 4; ++d) hot.shards.push_back(Shard{d, 0, 10, 0, 8});
  hot.shards.push_back(Shard{0, 10, 990, 0, 8});
  hot.routes = {RowRoute{.requester = 2, .shard = 1}};
  hot.rank_bands = {10};
  hot.hot_row_ids = {42, 7};
  TableSharding plain = hot;
  plain.rank_bands.clear();
  plain.hot_row_ids.clear();
  plain.table = "u";
  plain.row_order = RowOrder::kNatural;
  plain.routes.clear();
  plan.tables = {hot, plain};
  const v1::Plan proto = PlanToProto(plan);
  EXPECT_TRUE(proto.tables(0).has_row_layout());
  EXPECT_EQ(proto.tables(0).row_layout().row_order(), v1::FREQUENCY_RANK);
  ASSERT_EQ(proto.tables(0).row_layout().routes_size(), 1);
  EXPECT_EQ(proto.tables(0).row_layout().routes(0).shard(), 1);
  EXPECT_FALSE(proto.tables(1).has_row_layout());
  absl::StatusOr<Plan> back = PlanFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->tables[0].row_order, RowOrder::kFrequencyRank);
  ASSERT_EQ(proto.tables(0).row_layout().rank_bands_size(), 1);
  EXPECT_EQ(proto.tables(0).row_layout().rank_bands(0), 10);
  EXPECT_EQ(back->tables[0].rank_bands, std::vector<int64_t>{10});
  EXPECT_EQ(proto.tables(0).row_layout().hot_row_ids_size(), 2);
  EXPECT_EQ(back->tables[0].hot_row_ids, (std::vector<int64_t>{42, 7}));
  ASSERT_EQ(back->tables[0].routes.size(), 1u);
  EXPECT_EQ(back->tables[0].routes[0].requester, 2);
  EXPECT_EQ(back->tables[0].routes[0].shard, 1);
  EXPECT_EQ(back->tables[0].shards.size(), 5u);
  EXPECT_EQ(back->tables[1].row_order, RowOrder::kNatural);
  EXPECT_TRUE(back->tables[1].routes.empty());

  v1::Plan bad = proto;
  bad.mutable_tables(0)->mutable_row_layout()->set_row_order(static_cast<v1::RowOrder>(7));
  EXPECT_EQ(PlanShardsFromProto(bad).status().message(),
            "plan.tables[0].row_layout.row_order: invalid value 7 (NATURAL or FREQUENCY_RANK)");
}

}  // namespace
}  // namespace shardplan::wire
