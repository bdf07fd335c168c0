// NeuralCostModel with the kServed compute feature set and a collective model: the sharding types
// it costs, what its compute model is fed per shard, and its collective costs.
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "costmodels/neural/neural_cost_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/nn/reference_mlp.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using testing_neural::RandomLayers;

using test::MakeTable;
using test::ShardingOf;

constexpr ShardingType kAllTypes[] = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                      ShardingType::kRowWise, ShardingType::kTableRowWise,
                                      ShardingType::kDataParallel};

FeatureNormalizer Normalizer(int n) {
  std::vector<double> means(n, 0.0), stds(n, 1.0);
  means[17] = 64;  // dim, pooling factor, rows at their magnitudes
  stds[17] = 40;
  means[18] = 10;
  stds[18] = 10;
  means[19] = 1e5;
  stds[19] = 1e5;
  return *FeatureNormalizer::Create(means, stds);
}

NeuralComputeModel Compute(ShardFeatureSet set, uint32_t seed,
                           ComputeCalls calls = ComputeCalls::kOnePerDevice) {
  std::mt19937 rng(seed);
  const int n = NumShardFeatures(set);
  return *NeuralComputeModel::Create(
      Normalizer(n), *Mlp::Create(RandomLayers({n, 16, 8}, rng), true),
      *Mlp::Create(RandomLayers({8, 4, 1}, rng)), NeuralComputeModel::kDefaultLatentMemoCapacity,
      FeatureTransform::kRaw, set, calls);
}

NeuralCollectiveModel Collectives(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> means(kNumCollectiveCallFeatures, 1.0), stds(kNumCollectiveCallFeatures, 3.0);
  return *NeuralCollectiveModel::Create(
      *FeatureNormalizer::Create(means, stds),
      *Mlp::Create(RandomLayers({kNumCollectiveCallFeatures, 8, 1}, rng)));
}

// Any device count (device-set comm), so the tests plan on any topology.
DeviceSetCommModels Comm(uint32_t seed) {
  std::mt19937 rng(seed);
  auto make = [&](CommDirection direction) {
    const int in = DeviceSetCommNumInputs(direction);
    std::vector<double> means(in, 0.0), stds(in, 100.0);
    return *DeviceSetCommModel::Create(direction, *FeatureNormalizer::Create(means, stds),
                                       *Mlp::Create(RandomLayers({in, 4, 1}, rng)), 65536);
  };
  return {make(CommDirection::kForward), make(CommDirection::kBackward), {{8, 4}}};
}

NeuralCostModel Model(ShardFeatureSet set, bool collectives) {
  return *NeuralCostModel::Create(
      "m", "6", Compute(set, 3), {}, NeuralCostModel::CommCosts::kNeural, std::nullopt, Comm(4),
      collectives ? std::optional<NeuralCollectiveModel>(Collectives(5)) : std::nullopt);
}

Table SomeTable() {
  Table t = MakeTable("t", 200000, 64, 12);
  for (int j = 0; j < kNumAccessBins; ++j) t.access_bins.push_back(j < 8 ? 0.1 : 0.2 / 9);
  return t;
}

TEST(ServedCostModelTest, CostsEveryTypeOnlyWithServedFeaturesAndACollectiveModel) {
  struct Case {
    ShardFeatureSet set;
    bool collectives;
    bool row_level;
  };
  for (const Case& c :
       {Case{ShardFeatureSet::kReference, false, false},
        Case{ShardFeatureSet::kReference, true, false},
        Case{ShardFeatureSet::kServed, false, false}, Case{ShardFeatureSet::kServed, true, true}}) {
    const NeuralCostModel model = Model(c.set, c.collectives);
    for (ShardingType type : kAllTypes) {
      EXPECT_EQ(model.CostsShardingType(type), IsColumnLevel(type) || c.row_level)
          << ShardFeatureSetName(c.set) << " " << c.collectives << " " << static_cast<int>(type);
    }
  }
}

TEST(ServedCostModelTest, ComputeIsTheModelOfWhatEachShardServes) {
  const NeuralCostModel model = Model(ShardFeatureSet::kServed, true);
  const NeuralComputeModel& compute = model.compute();
  const Table table = SomeTable();
  const ShardView tw{.table = &table, .rows = table.rows, .columns = 64};
  const ShardView rw{.table = &table,
                     .rows = table.rows / 4,
                     .columns = 64,
                     .sharding = ShardingType::kRowWise,
                     .group_size = 4};
  const ShardView dp{.table = &table,
                     .rows = table.rows,
                     .columns = 64,
                     .sharding = ShardingType::kDataParallel,
                     .group_size = 8};
  for (const ShardView& shard : {tw, rw, dp}) {
    std::array<float, kNumServedFeatures> f;
    ServedShardFeatures(shard, f);
    EXPECT_EQ(compute.Predict({&shard, 1}), compute.PredictFromFeatures(f));
  }
  // A whole table is its TableFeatures with batch_share 1.
  std::array<float, kNumServedFeatures> whole{};
  TableFeatures(table, 64, std::span<float>(whole).first<kNumTableFeatures>());
  whole[kNumTableFeatures] = 1.0f;
  EXPECT_EQ(compute.Predict({&tw, 1}), compute.PredictFromFeatures(whole));
  // The three serve different things, so they cost differently.
  EXPECT_NE(compute.Predict({&tw, 1}), compute.Predict({&rw, 1}));
  EXPECT_NE(compute.Predict({&tw, 1}), compute.Predict({&dp, 1}));
  // An empty block of rows adds nothing.
  const ShardView empty{.table = &table,
                        .rows = 0,
                        .columns = 64,
                        .sharding = ShardingType::kRowWise,
                        .group_size = 4};
  const ShardView with_empty[] = {tw, empty};
  EXPECT_EQ(compute.Predict(with_empty), compute.Predict({&tw, 1}));
  // The search's latent path agrees with ComputeCost.
  const SumPooledCompute& pooled = *model.sum_pooled_compute();
  std::vector<float> latent(pooled.latent_size());
  const CostContext context{};
  pooled.ShardLatent(context, dp, latent);
  EXPECT_EQ(pooled.CostOfLatentSum(latent), model.ComputeCost(context, {&dp, 1}));
}

// Per kernel call: a device costs the sum of its calls (KernelCallKey), each the pred MLP over
// its own shards' latents; a device of one call costs what the one-call model says.
TEST(ServedCostModelTest, PerKernelCallModelsSumTheCallsOfADevice) {
  const NeuralComputeModel per_device = Compute(ShardFeatureSet::kServed, 3);
  const NeuralComputeModel per_call =
      Compute(ShardFeatureSet::kServed, 3, ComputeCalls::kPerKernelCall);
  EXPECT_EQ(per_call.calls(), ComputeCalls::kPerKernelCall);
  const Table table = SomeTable();
  const Table other = MakeTable("u", 5000, 16, 2);
  auto view = [](const Table& t, ShardingType type, int32_t group) {
    const bool rows = type == ShardingType::kRowWise || type == ShardingType::kTableRowWise;
    return ShardView{.table = &t,
                     .rows = rows ? t.rows / group : t.rows,
                     .columns = t.dim,
                     .sharding = type,
                     .group_size = group};
  };
  const ShardView tw = view(table, ShardingType::kTableWise, 1);
  const ShardView cw = view(other, ShardingType::kColumnWise, 1);
  const ShardView rw = view(table, ShardingType::kRowWise, 4);
  const ShardView dp8 = view(other, ShardingType::kDataParallel, 8);
  const ShardView dp8b = view(table, ShardingType::kDataParallel, 8);
  const ShardView dp4 = view(other, ShardingType::kDataParallel, 4);
  // One call: as the one-call model.
  const ShardView column_level[] = {tw, cw};
  EXPECT_EQ(per_call.Predict(column_level), per_device.Predict(column_level));
  const ShardView replicas[] = {dp8, dp8b};
  EXPECT_EQ(per_call.Predict(replicas), per_device.Predict(replicas));
  EXPECT_EQ(per_call.Predict({}), per_device.Predict({}));  // an empty device: one empty call
  // Several calls: the sum of the calls, whatever the shards' order.
  const ShardView mixed[] = {dp8, tw, dp4, rw, cw, dp8b};
  const ShardView dp4_only[] = {dp4};
  const ShardView rw_only[] = {rw};
  const double sum = per_device.Predict(column_level) + per_device.Predict(rw_only) +
                     per_device.Predict(replicas) + per_device.Predict(dp4_only);
  EXPECT_NEAR(per_call.Predict(mixed), sum, 1e-9);
  EXPECT_NE(per_device.Predict(mixed), per_call.Predict(mixed));
  // Only the served features tell a block or a replica from its table.
  std::mt19937 rng(1);
  const int n = NumShardFeatures(ShardFeatureSet::kReference);
  EXPECT_FALSE(NeuralComputeModel::Create(Normalizer(n),
                                          *Mlp::Create(RandomLayers({n, 16, 8}, rng), true),
                                          *Mlp::Create(RandomLayers({8, 4, 1}, rng)), 0,
                                          FeatureTransform::kRaw, ShardFeatureSet::kReference,
                                          ComputeCalls::kPerKernelCall)
                   .ok());
}

TEST(ServedCostModelTest, AReferenceModelCostsATableAsToday) {
  const NeuralCostModel model = Model(ShardFeatureSet::kReference, false);
  const Table table = SomeTable();
  const ShardView cw{
      .table = &table, .rows = table.rows, .columns = 32, .sharding = ShardingType::kColumnWise};
  std::array<float, kNumTableFeatures> f;
  TableFeatures(table, 32, f);
  EXPECT_EQ(model.compute().Predict({&cw, 1}), model.compute().PredictFromFeatures(f));
}

TEST(ServedCostModelTest, CostCollectivesIsPerDeviceAndFinite) {
  Topology topology;
  topology.memory_bytes.assign(8, int64_t{1} << 34);
  topology.devices_per_host = 4;
  const Table table = SomeTable();
  TableSharding dp = ShardingOf(ShardingType::kDataParallel);
  for (int d = 0; d < 8; ++d) dp.shards.push_back({d, 0, table.rows, 0, 64});
  TableSharding twrw = ShardingOf(ShardingType::kTableRowWise);
  twrw.shards.push_back({4, 0, table.rows / 2, 0, 64});
  twrw.shards.push_back({5, table.rows / 2, table.rows / 2, 0, 64});
  std::vector<CollectiveDemand> demands = TableCollectives(table, twrw, topology, 65536);
  const CostContext context{&topology, 65536};
  const NeuralCostModel model = Model(ShardFeatureSet::kServed, true);
  const CollectiveCosts costs = model.CostCollectives(context, demands);
  ASSERT_EQ(costs.forward_ms.size(), 8u);
  // The in-host collectives span host 1 (devices 4-7); the all-to-alls pair 4 with 0, 5 with 1.
  for (int d = 0; d < 8; ++d) {
    const bool in_a_call = d >= 4 || d == 0 || d == 1;
    EXPECT_TRUE(std::isfinite(costs.forward_ms[d]) && std::isfinite(costs.backward_ms[d]));
    EXPECT_EQ(costs.forward_ms[d] > 0.0, in_a_call) << d;
    EXPECT_EQ(costs.backward_ms[d] > 0.0, in_a_call) << d;
  }
  for (const CollectiveDemand& d : TableCollectives(table, dp, topology, 65536)) {
    demands.push_back(d);
  }
  const CollectiveCosts with_dp = model.CostCollectives(context, demands);
  for (int d = 0; d < 8; ++d) {
    EXPECT_EQ(with_dp.forward_ms[d], costs.forward_ms[d]);  // the all-reduce is backward only
    EXPECT_GT(with_dp.backward_ms[d], costs.backward_ms[d]);
  }
  // Without a collective model: NaN where charged (the interface's default).
  const CollectiveCosts none =
      Model(ShardFeatureSet::kServed, false).CostCollectives(context, demands);
  EXPECT_TRUE(std::isnan(none.backward_ms[0]));
}

// A plan without a table-wise or column-wise shard has no pooled all-to-all (as TorchRec, and the
// simulator): the comm models, which never saw an all-zero placement, are not asked.
TEST(ServedCostModelTest, NoColumnLevelShardCostsNoPooledAllToAll) {
  Topology topology;
  topology.memory_bytes.assign(8, int64_t{1} << 34);
  topology.devices_per_host = 4;
  const CostContext context{&topology, 65536};
  const NeuralCostModel model = Model(ShardFeatureSet::kServed, true);
  const std::vector<int64_t> none(8, 0);
  const std::vector<double> waits = {0, 1, 2, 3, 0, 0, 0, 0};
  EXPECT_EQ(model.BackwardCommCosts(context, none), std::vector<double>(8, 0.0));
  EXPECT_EQ(model.ForwardCommCosts(context, none, waits), std::vector<double>(8, 0.0));
  // One device with columns and the all-to-all runs for all (the others receive).
  std::vector<int64_t> one = none;
  one[5] = 16;
  for (double ms : model.BackwardCommCosts(context, one)) EXPECT_NE(ms, 0.0);
}

TEST(ServedCostModelTest, RefusesACollectiveModelWithoutAnInterconnect) {
  auto model = NeuralCostModel::Create("cpu", "1", Compute(ShardFeatureSet::kServed, 1), {},
                                       NeuralCostModel::CommCosts::kZero, std::nullopt,
                                       std::nullopt, Collectives(2));
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()), HasSubstr("zero comm costs"));
}

TEST(ServedCostModelTest, RefusesFeaturesOfAnotherSet) {
  std::mt19937 rng(1);
  auto compute = NeuralComputeModel::Create(
      Normalizer(kNumTableFeatures),
      *Mlp::Create(RandomLayers({kNumTableFeatures, 8, 4}, rng), true),
      *Mlp::Create(RandomLayers({4, 1}, rng)), 0, FeatureTransform::kRaw, ShardFeatureSet::kServed);
  ASSERT_FALSE(compute.ok());
  EXPECT_THAT(std::string(compute.status().message()),
              HasSubstr("need 21 of each (feature set served)"));
}

}  // namespace
}  // namespace shardplan
