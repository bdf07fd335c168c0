#include "costmodels/neural/collective_model.h"

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/nn/reference_mlp.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

using test::EvenShards;
using test::MakeTable;

Topology Hosts(int devices, int per_host) {
  Topology topology;
  topology.memory_bytes.assign(devices, int64_t{1} << 34);
  topology.devices_per_host = per_host;
  return topology;
}

NeuralCollectiveModel RandomModel(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> means(kNumCollectiveCallFeatures, 0.5), stds(kNumCollectiveCallFeatures, 2.0);
  return *NeuralCollectiveModel::Create(
      *FeatureNormalizer::Create(means, stds),
      *Mlp::Create(testing_neural::RandomLayers({kNumCollectiveCallFeatures, 8, 1}, rng)));
}

TEST(CollectiveCallFeaturesTest, DescribeTheGroupOnItsHosts) {
  // A table-row-wise table on host 1 of 4 hosts of 2: its cross-host all-to-alls span one device
  // per host.
  const Table t = MakeTable("t", 1000, 8, 1);
  const Topology topology = Hosts(8, 2);
  const std::vector<CollectiveCall> calls = FuseCollectiveCalls(
      TableCollectives(t, EvenShards(ShardingType::kTableRowWise, {2, 3}, 1000, 8), topology, 800));
  const CollectiveCall* across = nullptr;
  for (const CollectiveCall& call : calls) {
    if (call.collective == Collective::kAllToAll && call.pass == Pass::kForward) {
      across = &call;
      break;
    }
  }
  ASSERT_NE(across, nullptr);
  EXPECT_EQ(across->peers, (std::vector<int32_t>{0, 2, 4, 6}));
  std::array<float, kNumCollectiveCallFeatures> f;
  const size_t member = 1;  // device 2, which holds the shard
  CollectiveCallFeatures(*across, member, topology, f);
  EXPECT_EQ(f[0], 1.0f);                       // all-to-all
  EXPECT_EQ(f[4], 0.0f);                       // forward
  const double bytes = 800.0 / 8 * 4 * 8 * 4;  // (B / W) x hosts x dim x 4
  EXPECT_FLOAT_EQ(f[6], static_cast<float>(std::log10(1 + bytes)));
  EXPECT_FLOAT_EQ(f[10], 2.0f);  // log2 of 4 members
  EXPECT_EQ(f[11], 4.0f);        // hosts
  EXPECT_EQ(f[12], 1.0f);        // one member per host
  EXPECT_EQ(f[14], 3.0f);        // log2 of 8 devices
  EXPECT_EQ(f[15], 2.0f);        // devices per host
  // A member that holds no shard puts nothing in.
  CollectiveCallFeatures(*across, 0, topology, f);
  EXPECT_EQ(f[6], 0.0f);
  EXPECT_EQ(CollectiveCallFeatureNames().size(), static_cast<size_t>(kNumCollectiveCallFeatures));
}

TEST(NeuralCollectiveModelTest, SumsItsCallsPerDeviceAndChargesNoOneElse) {
  const NeuralCollectiveModel model = RandomModel(5);
  const Topology topology = Hosts(8, 4);
  const Table rw = MakeTable("rw", 4000, 64, 3);
  const Table dp = MakeTable("dp", 500, 16, 3);
  // Row-wise over host 0 only is not a valid plan, so use a table-row-wise table there: its
  // reduce-scatter and all-gather span devices 0-3, its all-to-alls a device of each host.
  std::vector<CollectiveDemand> demands = TableCollectives(
      rw, EvenShards(ShardingType::kTableRowWise, {0, 1}, 4000, 64), topology, 4096);
  const CollectiveCosts costs = model.Predict(topology, demands);
  ASSERT_EQ(costs.forward_ms.size(), 8u);
  ASSERT_EQ(costs.backward_ms.size(), 8u);
  // Devices 6 and 7 share no call with the table (its all-to-alls pair 0-4 and 1-5).
  for (int d : {6, 7}) {
    EXPECT_EQ(costs.forward_ms[d], 0.0) << d;
    EXPECT_EQ(costs.backward_ms[d], 0.0) << d;
  }
  for (int d = 0; d < 6; ++d) {
    EXPECT_TRUE(std::isfinite(costs.forward_ms[d]) && costs.forward_ms[d] > 0.0) << d;
    EXPECT_TRUE(std::isfinite(costs.backward_ms[d]) && costs.backward_ms[d] > 0.0) << d;
  }
  // Device 0 takes part in the in-host reduce-scatter and its all-to-all: the sum of both.
  double expected = 0.0;
  std::array<float, kNumCollectiveCallFeatures> f;
  for (const CollectiveCall& call : FuseCollectiveCalls(demands)) {
    if (call.pass != Pass::kForward) continue;
    for (size_t i = 0; i < call.peers.size(); ++i) {
      if (call.peers[i] != 0) continue;
      CollectiveCallFeatures(call, i, topology, f);
      expected += model.PredictMemberMs(f);
    }
  }
  EXPECT_DOUBLE_EQ(costs.forward_ms[0], expected);

  // A data-parallel table's all-reduce spans every device, in the backward pass only.
  demands = TableCollectives(
      dp, EvenShards(ShardingType::kDataParallel, {0, 1, 2, 3, 4, 5, 6, 7}, 500, 16), topology,
      4096);
  const CollectiveCosts replicated = model.Predict(topology, demands);
  for (int d = 0; d < 8; ++d) {
    EXPECT_EQ(replicated.forward_ms[d], 0.0);
    EXPECT_GT(replicated.backward_ms[d], 0.0);
    EXPECT_EQ(replicated.backward_ms[d], replicated.backward_ms[0]);  // one call, alike members
  }
}

TEST(NeuralCollectiveModelTest, AGroupOfOneWithoutAReplicaCostsNothing) {
  const NeuralCollectiveModel model = RandomModel(6);
  const Topology topology = Hosts(4, 1);  // hosts of one: in-host groups of one
  const Table t = MakeTable("t", 100, 8, 1);
  const CollectiveCosts costs = model.Predict(
      topology,
      TableCollectives(t, EvenShards(ShardingType::kTableRowWise, {2}, 100, 8), topology, 64));
  // The in-host reduce-scatter has one member: free; the all-to-alls across the 4 hosts are not.
  for (int d = 0; d < 4; ++d) EXPECT_GT(costs.forward_ms[d], 0.0) << d;
  std::vector<CollectiveDemand> alone =
      TableCollectives(t, EvenShards(ShardingType::kTableRowWise, {0}, 100, 8), Hosts(1, 1), 64);
  const CollectiveCosts single = model.Predict(Hosts(1, 1), alone);
  EXPECT_EQ(single.forward_ms[0], 0.0);
  EXPECT_EQ(single.backward_ms[0], 0.0);
}

TEST(NeuralCollectiveModelTest, RefusesAnotherShape) {
  std::mt19937 rng(1);
  std::vector<double> ones(kNumCollectiveCallFeatures, 1.0);
  auto bad = NeuralCollectiveModel::Create(
      *FeatureNormalizer::Create(ones, ones),
      *Mlp::Create(testing_neural::RandomLayers({kNumCollectiveCallFeatures, 4, 2}, rng)));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("need 16->1 without"));
}

}  // namespace
}  // namespace shardplan
