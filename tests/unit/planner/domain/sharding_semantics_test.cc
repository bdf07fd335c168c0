// What DescribePlacement makes of each sharding type: shard views, dim sums and collectives.
#include "planner/domain/sharding_semantics.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::MakeTable;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Four devices, two per host; a global batch of 1024.
Task TwoHostTask() {
  Task task = test::MakeTask({MakeTable("big", 1000, 16, 4.0), MakeTable("small", 10, 8, 1.0)},
                             4, test::kGiB);
  task.topology.devices_per_host = 2;
  task.batch_size = 1024;
  return task;
}

TableSharding Sharding(std::string table, ShardingType type, std::vector<Shard> shards) {
  return TableSharding{.table = std::move(table), .sharding_type = type, .shards = std::move(shards)};
}

TEST(ShardingSemanticsTest, ColumnLevelShardsFeedTheDimSumsAndCauseNoOtherCollective) {
  const Task task = TwoHostTask();
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kColumnWise,
                          {Shard{0, 0, 1000, 0, 12}, Shard{3, 0, 1000, 12, 4}}),
                 Sharding("small", ShardingType::kTableWise, {Shard{0, 0, 10, 0, 8}})};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok()) << queries.status();
  EXPECT_THAT(queries->dim_sums, ElementsAre(20, 0, 0, 4));
  EXPECT_THAT(queries->collectives, IsEmpty());
  EXPECT_EQ(queries->shards_per_device[3][0].group_size, 1);
  EXPECT_DOUBLE_EQ(LookupShare(queries->shards_per_device[3][0]), 1.0);
}

TEST(ShardingSemanticsTest, RowWiseReducesPartialSumsOverTheWorld) {
  const Task task = TwoHostTask();
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kRowWise,
                          {Shard{1, 0, 700, 0, 16}, Shard{2, 700, 300, 0, 16}})};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok()) << queries.status();
  EXPECT_THAT(queries->dim_sums, ElementsAre(0, 0, 0, 0));
  const ShardView& shard = queries->shards_per_device[2][0];
  EXPECT_EQ(shard.sharding, ShardingType::kRowWise);
  EXPECT_EQ(shard.group_size, 2);
  EXPECT_EQ(shard.row_offset, 700);
  EXPECT_EQ(shard.rows, 300);
  EXPECT_DOUBLE_EQ(LookupShare(shard), 0.5);  // spread evenly, as TorchRec's estimator
  EXPECT_DOUBLE_EQ(BatchShare(shard, 4), 1.0);
  ASSERT_EQ(queries->collectives.size(), 2u);
  const CollectiveDemand& forward = queries->collectives[0];
  EXPECT_EQ(forward.collective, Collective::kReduceScatter);
  EXPECT_EQ(forward.pass, Pass::kForward);
  EXPECT_THAT(forward.devices, ElementsAre(1, 2));
  EXPECT_THAT(forward.peers, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(forward.crosses_hosts);
  EXPECT_DOUBLE_EQ(forward.bytes, 1024.0 * 16 * 4);
  EXPECT_EQ(queries->collectives[1].collective, Collective::kAllGather);
  EXPECT_EQ(queries->collectives[1].pass, Pass::kBackward);
}

TEST(ShardingSemanticsTest, TableRowWiseReducesInItsHostAndExchangesAcrossHosts) {
  const Task task = TwoHostTask();
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kTableRowWise,
                          {Shard{2, 0, 500, 0, 16}, Shard{3, 500, 500, 0, 16}})};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok()) << queries.status();
  // Per pass: one in-host collective, one cross-host all-to-all per shard.
  ASSERT_EQ(queries->collectives.size(), 6u);
  const CollectiveDemand& in_host = queries->collectives[0];
  EXPECT_EQ(in_host.collective, Collective::kReduceScatter);
  EXPECT_THAT(in_host.peers, ElementsAre(2, 3));
  EXPECT_FALSE(in_host.crosses_hosts);
  EXPECT_DOUBLE_EQ(in_host.bytes, 1024.0 * 16 * 4);
  const CollectiveDemand& across = queries->collectives[1];
  EXPECT_EQ(across.collective, Collective::kAllToAll);
  EXPECT_EQ(across.pass, Pass::kForward);
  EXPECT_THAT(across.devices, ElementsAre(2));
  EXPECT_THAT(across.peers, ElementsAre(0, 2));  // local rank 0 of each host
  EXPECT_TRUE(across.crosses_hosts);
  EXPECT_DOUBLE_EQ(across.bytes, 1024.0 / 4 * 2 * 16 * 4);  // per-rank batch x hosts x columns
  EXPECT_THAT(queries->collectives[2].peers, ElementsAre(1, 3));
  EXPECT_EQ(queries->collectives[3].collective, Collective::kAllGather);
}

TEST(ShardingSemanticsTest, TableRowWiseOnOneHostHasNoCrossHostExchange) {
  Task task = TwoHostTask();
  task.topology.devices_per_host = 0;  // one host
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kTableRowWise,
                          {Shard{0, 0, 500, 0, 16}, Shard{1, 500, 500, 0, 16}})};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok()) << queries.status();
  ASSERT_EQ(queries->collectives.size(), 2u);
  EXPECT_THAT(queries->collectives[0].peers, ElementsAre(0, 1, 2, 3));
}

TEST(ShardingSemanticsTest, DataParallelAllReducesTheTableOnEveryReplica) {
  const Task task = TwoHostTask();
  Plan plan;
  std::vector<Shard> replicas;
  for (int d = 0; d < 4; ++d) replicas.push_back(Shard{d, 0, 10, 0, 8});
  plan.tables = {Sharding("small", ShardingType::kDataParallel, replicas)};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok()) << queries.status();
  const ShardView& replica = queries->shards_per_device[3][0];
  EXPECT_EQ(replica.group_size, 4);
  EXPECT_DOUBLE_EQ(LookupShare(replica), 0.25);
  EXPECT_DOUBLE_EQ(BatchShare(replica, 4), 0.25);
  ASSERT_EQ(queries->collectives.size(), 1u);
  const CollectiveDemand& all_reduce = queries->collectives[0];
  EXPECT_EQ(all_reduce.collective, Collective::kAllReduce);
  EXPECT_EQ(all_reduce.pass, Pass::kBackward);
  EXPECT_THAT(all_reduce.devices, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(all_reduce.crosses_hosts);
  EXPECT_DOUBLE_EQ(all_reduce.bytes, 10.0 * 8 * 4);
  EXPECT_STREQ(CollectiveName(all_reduce.collective), "all_reduce");
}

TEST(ShardingSemanticsTest, RankOrderedRowsServeTheirCurvesShare) {
  Task task = TwoHostTask();
  task.tables[0].access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kRowWise,
                          {Shard{1, 0, 10, 0, 16}, Shard{2, 10, 990, 0, 16}})};
  // A profile whose ranks are not the ids changes nothing: 1/n each.
  absl::StatusOr<PlacementQueries> unranked = DescribePlacement(task, plan);
  ASSERT_TRUE(unranked.ok());
  EXPECT_DOUBLE_EQ(LookupShare(unranked->shards_per_device[1][0]), 0.5);
  // Ids are ranks: the hottest 1% of a Zipf(1) table of 1000 rows serves H(10)/H(1000).
  task.tables[0].access_profile.rows_in_rank_order = true;
  absl::StatusOr<PlacementQueries> ranked = DescribePlacement(task, plan);
  ASSERT_TRUE(ranked.ok());
  double h10 = 0.0, h1000 = 0.0;
  for (int k = 1; k <= 1000; ++k) (k <= 10 ? h10 : h1000) += 1.0 / k;
  h1000 += h10;
  EXPECT_NEAR(LookupShare(ranked->shards_per_device[1][0]), h10 / h1000, 1e-12);
  EXPECT_NEAR(LookupShare(ranked->shards_per_device[2][0]), 1 - h10 / h1000, 1e-12);
}

TEST(ShardingSemanticsTest, SequenceTablesSendTheirOutputsWhole) {
  Task task = TwoHostTask();
  task.tables[0].pooling = Pooling::kSequence;  // L = 4
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kTableWise, {Shard{0, 0, 1000, 0, 16}}),
                 Sharding("small", ShardingType::kTableWise, {Shard{0, 0, 10, 0, 8}})};
  absl::StatusOr<PlacementQueries> column = DescribePlacement(task, plan);
  ASSERT_TRUE(column.ok());
  EXPECT_THAT(column->dim_sums, ElementsAre(4 * 16 + 8, 0, 0, 0));  // L x columns

  plan.tables = {Sharding("big", ShardingType::kRowWise,
                          {Shard{1, 0, 500, 0, 16}, Shard{2, 500, 500, 0, 16}})};
  absl::StatusOr<PlacementQueries> rows = DescribePlacement(task, plan);
  ASSERT_TRUE(rows.ok());
  // No reduce-scatter: each shard all-to-alls the rows it looked up, forward and backward.
  ASSERT_EQ(rows->collectives.size(), 4u);
  for (const CollectiveDemand& demand : rows->collectives) {
    EXPECT_EQ(demand.collective, Collective::kAllToAll);
    EXPECT_EQ(demand.devices.size(), 1u);
    EXPECT_TRUE(demand.crosses_hosts);
    // Half of 4 x 1024 lookups, 16 fp32 columns each.
    EXPECT_DOUBLE_EQ(demand.bytes, 0.5 * 4 * 1024 * 16 * kActivationBytes);
  }
  EXPECT_EQ(rows->collectives[0].pass, Pass::kForward);
  EXPECT_EQ(rows->collectives[3].pass, Pass::kBackward);
  EXPECT_DOUBLE_EQ(OutputsPerSample(task.tables[0]), 4.0);
  EXPECT_DOUBLE_EQ(OutputsPerSample(task.tables[1]), 1.0);
}

TEST(ShardingSemanticsTest, InferenceCausesNoBackwardCollective) {
  Task task = TwoHostTask();
  task.objective = Objective::kInference;
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kRowWise,
                          {Shard{1, 0, 700, 0, 16}, Shard{2, 700, 300, 0, 16}}),
                 Sharding("small", ShardingType::kDataParallel,
                          {Shard{0, 0, 10, 0, 8}, Shard{1, 0, 10, 0, 8}, Shard{2, 0, 10, 0, 8},
                           Shard{3, 0, 10, 0, 8}})};
  absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  ASSERT_TRUE(queries.ok());
  ASSERT_EQ(queries->collectives.size(), 1u);  // the forward reduce-scatter; no all-reduce
  EXPECT_EQ(queries->collectives[0].collective, Collective::kReduceScatter);
  EXPECT_EQ(queries->collectives[0].pass, Pass::kForward);
}

TEST(ShardingSemanticsTest, BadShardsNameTheField) {
  const Task task = TwoHostTask();
  Plan plan;
  plan.tables = {Sharding("big", ShardingType::kRowWise, {Shard{9, 0, 1000, 0, 16}})};
  EXPECT_EQ(DescribePlacement(task, plan).status().message(),
            "tables[0].shards[0].device: device 9 does not exist (topology.num_devices is 4)");
}

// One kernel call per sharding family and replica count, in the order they run.
TEST(ShardingSemanticsTest, KernelCallKeysGroupShardsAsTorchRecRunsThem) {
  const Table table = MakeTable("t", 1000, 16, 4.0);
  auto key = [&](ShardingType type, int64_t rows, int32_t group) {
    return KernelCallKey(ShardView{
        .table = &table, .rows = rows, .columns = 16, .sharding = type, .group_size = group});
  };
  EXPECT_EQ(key(ShardingType::kTableWise, 1000, 1), key(ShardingType::kColumnWise, 1000, 1));
  EXPECT_LT(key(ShardingType::kTableWise, 1000, 1), key(ShardingType::kRowWise, 250, 4));
  EXPECT_LT(key(ShardingType::kRowWise, 250, 4), key(ShardingType::kTableRowWise, 500, 2));
  EXPECT_EQ(key(ShardingType::kRowWise, 250, 4), key(ShardingType::kRowWise, 125, 8));
  EXPECT_LT(key(ShardingType::kTableRowWise, 500, 2), key(ShardingType::kDataParallel, 1000, 2));
  EXPECT_NE(key(ShardingType::kDataParallel, 1000, 2), key(ShardingType::kDataParallel, 1000, 8));
  EXPECT_EQ(key(ShardingType::kRowWise, 0, 4), -1);  // an empty block runs in no call
  EXPECT_EQ(key(ShardingType::kTableRowWise, 0, 4), -1);
}

}  // namespace
}  // namespace shardplan
