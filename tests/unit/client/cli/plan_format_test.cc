#include "client/cli/plan_format.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {
namespace {

using ::testing::HasSubstr;

void AddShard(shardplan::v1::TableSharding& sharding, int device, int64_t row_offset, int64_t rows,
              int column_offset, int columns) {
  shardplan::v1::Shard* shard = sharding.add_shards();
  shard->set_device(device);
  shard->set_row_offset(row_offset);
  shard->set_row_count(rows);
  shard->set_column_offset(column_offset);
  shard->set_column_count(columns);
}

// The assignment table says where each kind of shard sits in its own terms.
TEST(FormatPlanTextTest, PlacementsNameRowsColumnsOrReplicas) {
  shardplan::v1::Plan plan;
  auto& tw = *plan.add_tables();
  tw.set_table("tw");
  tw.set_sharding_type(shardplan::v1::TABLE_WISE);
  AddShard(tw, 2, 0, 100, 0, 8);
  auto& cw = *plan.add_tables();
  cw.set_table("cw");
  cw.set_sharding_type(shardplan::v1::COLUMN_WISE);
  AddShard(cw, 0, 0, 100, 0, 4);
  AddShard(cw, 1, 0, 100, 4, 4);
  auto& twrw = *plan.add_tables();
  twrw.set_table("twrw");
  twrw.set_sharding_type(shardplan::v1::TABLE_ROW_WISE);
  AddShard(twrw, 0, 0, 50, 0, 8);
  AddShard(twrw, 1, 50, 50, 0, 8);
  auto& rw = *plan.add_tables();
  rw.set_table("rw");
  rw.set_sharding_type(shardplan::v1::ROW_WISE);
  AddShard(rw, 3, 0, 100, 0, 8);  // one block is still a row range
  auto& dp = *plan.add_tables();
  dp.set_table("dp");
  dp.set_sharding_type(shardplan::v1::DATA_PARALLEL);
  AddShard(dp, 0, 0, 100, 0, 8);
  AddShard(dp, 1, 0, 100, 0, 8);

  const std::string text = FormatPlanText(plan, std::nullopt);
  EXPECT_THAT(text, HasSubstr("0[c0:4) 1[c4:8)"));
  EXPECT_THAT(text, HasSubstr("0[r0:50) 1[r50:100)"));
  EXPECT_THAT(text, HasSubstr("3[r0:100)"));
  EXPECT_THAT(text, HasSubstr("0 1 (replicas)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("[c0:8)")));
}

// A row layout stays compact in the table: replicas of a row group share its range, and the
// sharding column says the order and the routes.
TEST(FormatPlanTextTest, ReplicatedRowGroupsShareTheirRange) {
  shardplan::v1::Plan plan;
  auto& hot = *plan.add_tables();
  hot.set_table("hot");
  hot.set_sharding_type(shardplan::v1::ROW_WISE);
  for (int d = 0; d < 4; ++d) AddShard(hot, d, 0, 10, 0, 8);
  AddShard(hot, 0, 10, 495, 0, 8);
  AddShard(hot, 1, 505, 495, 0, 8);
  hot.mutable_row_layout()->set_row_order(shardplan::v1::FREQUENCY_RANK);
  auto* route = hot.mutable_row_layout()->add_routes();
  route->set_requester(2);
  route->set_shard(1);
  const std::string text = FormatPlanText(plan, std::nullopt);
  EXPECT_THAT(text, HasSubstr("0+1+2+3[r0:10) 0[r10:505) 1[r505:1000)"));
  EXPECT_THAT(text, HasSubstr("row_wise by rank, 1 route"));
  hot.mutable_row_layout()->add_rank_bands(10);
  EXPECT_THAT(FormatPlanText(plan, std::nullopt), HasSubstr("row_wise by rank in 2 bands, 1 route"));
}

// Dotted keys are what the algorithm reports (FlexShard's tiers): a table of their own, one row
// each, while the parameters line keeps the parameters.
TEST(FormatPlanTextTest, ReportedFiguresGetATableOfTheirOwn) {
  shardplan::v1::Plan plan;
  plan.set_algorithm("flexshard");
  (*plan.mutable_parameters())["tiers"] = "3";
  (*plan.mutable_parameters())["tier.dp.rows"] = "20551";
  (*plan.mutable_parameters())["breakpoint.memory"] = "0.00145721";
  const std::string text = FormatPlanText(plan, std::nullopt);
  EXPECT_THAT(text, HasSubstr("parameters:  tiers=3\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("reported by flexshard +value\n-+  -+\n"
                                             "breakpoint.memory +0.00145721\n"
                                             "tier.dp.rows +20551\n"));
  shardplan::v1::Plan plain;
  (*plain.mutable_parameters())["depth"] = "2";
  EXPECT_THAT(FormatPlanText(plain, std::nullopt), ::testing::Not(HasSubstr("reported by")));
}

}  // namespace
}  // namespace shardplan::cli
