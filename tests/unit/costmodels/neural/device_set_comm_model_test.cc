#include "costmodels/neural/device_set_comm_model.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/neural_cost_model.h"
#include "gtest/gtest.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/task.h"
#include "tests/unit/nn/reference_mlp.h"

namespace shardplan {
namespace {

FeatureNormalizer RandomNormalizer(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> means, stds;
  for (int i = 0; i < n; ++i) {
    means.push_back(50.0 * u(rng));
    stds.push_back(1.0 + 40.0 * u(rng));
  }
  return *FeatureNormalizer::Create(means, stds);
}

DeviceSetCommModel RandomCommModel(CommDirection direction, uint32_t seed) {
  std::mt19937 rng(seed);
  const int in = DeviceSetCommNumInputs(direction);
  return *DeviceSetCommModel::Create(
      direction, RandomNormalizer(in, rng),
      *Mlp::Create(testing_neural::RandomLayers({in, 16, 8, 1}, rng), false), 65536);
}

std::vector<float> Features(CommDirection direction, const std::vector<int64_t>& dims,
                            const std::vector<double>& waits, int per_host, double scale = 1.0) {
  std::vector<float> rows;
  AppendDeviceSetCommFeatures(direction, dims, waits, per_host, scale, rows);
  return rows;
}

TEST(DeviceSetCommFeaturesTest, AreTheAllToAllsBytesPerLinkClass) {
  // 4 devices in 2 hosts of 2: dims 10, 30 | 20, 40. T = 100, H = 40 | 60, N = 4.
  const std::vector<float> rows =
      Features(CommDirection::kForward, {10, 30, 20, 40}, {0.0, 2.0, 1.0, 0.5}, 2);
  ASSERT_EQ(rows.size(), 4u * 13);
  ASSERT_EQ(DeviceSetCommInputNames(CommDirection::kForward).size(), 13u);
  const auto row = [&](int d) {
    return std::vector<float>(rows.begin() + 13 * d, rows.begin() + 13 * (d + 1));
  };
  // device 1: send_intra 30*1/4, recv_intra (40-30)/4, send_inter 30*2/4, recv_inter (100-40)/4,
  // received 100/4; maxima over devices: 40/4 (dev 3), 40/4 (dev 2: 60-20), 80/4 (dev 3),
  // 60/4 (devs 0, 1); log2 4, 2 per host, 2 hosts; wait gap 2 - 2.
  EXPECT_EQ(row(1), (std::vector<float>{7.5f, 2.5f, 15.0f, 15.0f, 25.0f, 10.0f, 10.0f, 20.0f, 15.0f,
                                        2.0f, 2.0f, 2.0f, 0.0f}));
  EXPECT_EQ(row(0)[12], 2.0f);
  // The backward direction has no wait gap; one host when devices_per_host is 0.
  const std::vector<float> backward = Features(CommDirection::kBackward, {10, 30}, {}, 0);
  ASSERT_EQ(backward.size(), 2u * 12);
  EXPECT_EQ(backward[2], 0.0f);   // nothing leaves the host
  EXPECT_EQ(backward[10], 2.0f);  // devices_per_host resolved to the device count
  EXPECT_EQ(backward[11], 1.0f);  // one host
  // Volumes scale with the batch.
  const std::vector<float> doubled =
      Features(CommDirection::kBackward, {10, 30}, {}, 0, /*scale=*/2.0);
  EXPECT_EQ(doubled[0], 2 * backward[0]);
  EXPECT_EQ(doubled[4], 2 * backward[4]);
}

// Renumbering the devices within a host, or swapping whole hosts, is the same cluster: every
// device gets the cost its counterpart had, bit for bit.
TEST(DeviceSetCommModelTest, IsEquivariantToRenumberingWithinAndAcrossWholeHosts) {
  const DeviceSetCommModel forward = RandomCommModel(CommDirection::kForward, 3);
  const DeviceSetCommModel backward = RandomCommModel(CommDirection::kBackward, 4);
  std::mt19937 rng(5);
  for (const int per_host : {0, 4, 8}) {
    const int n = 16;
    std::vector<int64_t> dims(n);
    std::vector<double> waits(n);
    for (int d = 0; d < n; ++d) {
      dims[d] = 4 * static_cast<int64_t>(rng() % 200);
      waits[d] = 0.125 * static_cast<double>(rng() % 64);
    }
    const int hosts = per_host == 0 ? 1 : n / per_host;
    const int size = per_host == 0 ? n : per_host;
    // new device p holds what old device perm[p] held: hosts reversed, devices shuffled inside.
    std::vector<int> perm(n);
    for (int h = 0; h < hosts; ++h) {
      std::vector<int> inside(size);
      std::iota(inside.begin(), inside.end(), (hosts - 1 - h) * size);
      std::shuffle(inside.begin(), inside.end(), rng);
      std::copy(inside.begin(), inside.end(), perm.begin() + h * size);
    }
    std::vector<int64_t> dims2(n);
    std::vector<double> waits2(n);
    for (int p = 0; p < n; ++p) {
      dims2[p] = dims[perm[p]];
      waits2[p] = waits[perm[p]];
    }
    const std::vector<double> fw = forward.Predict(dims, waits, per_host, 65536);
    const std::vector<double> fw2 = forward.Predict(dims2, waits2, per_host, 65536);
    const std::vector<double> bw = backward.Predict(dims, {}, per_host, 65536);
    const std::vector<double> bw2 = backward.Predict(dims2, {}, per_host, 65536);
    for (int p = 0; p < n; ++p) {
      EXPECT_EQ(fw2[p], fw[perm[p]]) << per_host << " " << p;
      EXPECT_EQ(bw2[p], bw[perm[p]]) << per_host << " " << p;
    }
  }
}

TEST(DeviceSetCommModelTest, ServesAnyDeviceCount) {
  const DeviceSetCommModel backward = RandomCommModel(CommDirection::kBackward, 6);
  for (const int n : {1, 2, 3, 7, 32, 128, 1024}) {
    const std::vector<int64_t> dims(n, 64);
    const std::vector<double> costs = backward.Predict(dims, {}, 8, 65536);
    ASSERT_EQ(costs.size(), static_cast<size_t>(n));
    // Equal devices in full hosts cost the same (the last host may be partial).
    if (n % 8 == 0 || n <= 8) {
      EXPECT_TRUE(std::all_of(costs.begin(), costs.end(), [&](double c) { return c == costs[0]; }))
          << n;
    }
  }
}

TEST(DeviceSetCommModelTest, CreateRefusesOtherShapes) {
  std::mt19937 rng(1);
  const auto make = [&](CommDirection direction, std::vector<int> sizes, int norm, int64_t batch) {
    return DeviceSetCommModel::Create(direction, RandomNormalizer(norm, rng),
                                      *Mlp::Create(testing_neural::RandomLayers(sizes, rng), false),
                                      batch);
  };
  EXPECT_TRUE(make(CommDirection::kForward, {13, 4, 1}, 13, 65536).ok());
  EXPECT_FALSE(make(CommDirection::kForward, {12, 4, 1}, 12, 65536).ok());
  EXPECT_FALSE(make(CommDirection::kBackward, {12, 4, 2}, 12, 65536).ok());
  EXPECT_FALSE(make(CommDirection::kBackward, {12, 4, 1}, 11, 65536).ok());
  EXPECT_FALSE(make(CommDirection::kBackward, {12, 4, 1}, 12, 0).ok());
}

// The neural cost model: a fixed-N pair wins for its N; the device-set pair serves the rest and
// says when a layout lies outside the ones it was trained on.
class DeviceSetCostModelTest : public ::testing::Test {
 protected:
  static NeuralCostModel Make(bool with_fixed_four) {
    std::mt19937 rng(9);
    NeuralComputeModel compute = *NeuralComputeModel::Create(
        RandomNormalizer(kNumTableFeatures, rng),
        *Mlp::Create(testing_neural::RandomLayers({kNumTableFeatures, 8, 4}, rng), true),
        *Mlp::Create(testing_neural::RandomLayers({4, 4, 1}, rng), false));
    std::map<int, NeuralCommModels> fixed;
    if (with_fixed_four) {
      const auto comm = [&](CommDirection d) {
        const int in = d == CommDirection::kForward ? 8 : 4;
        return *NeuralCommModel::Create(
            4, d, RandomNormalizer(in, rng),
            *Mlp::Create(testing_neural::RandomLayers({in, 4, 4}, rng), false));
      };
      fixed.emplace(
          4, NeuralCommModels{comm(CommDirection::kForward), comm(CommDirection::kBackward)});
    }
    DeviceSetCommModels any{RandomCommModel(CommDirection::kForward, 3),
                            RandomCommModel(CommDirection::kBackward, 4),
                            {{2, 2}, {8, 8}, {16, 8}, {16, 4}}};
    return *NeuralCostModel::Create("m", "1", std::move(compute), std::move(fixed),
                                    NeuralCostModel::CommCosts::kNeural, std::nullopt,
                                    std::move(any));
  }
  static Task TaskOf(int n, int per_host) {
    Task task;
    task.topology.memory_bytes.assign(n, int64_t{16} << 30);
    task.topology.devices_per_host = per_host;
    return task;
  }
};

TEST_F(DeviceSetCostModelTest, FixedPairsWinForTheirCountAndTheDeviceSetServesTheRest) {
  const NeuralCostModel model = Make(/*with_fixed_four=*/true);
  const std::vector<int64_t> four = {64, 32, 16, 8};
  const Task task4 = TaskOf(4, 0);
  EXPECT_EQ(model.BackwardCommCosts(CostContext::For(task4), four),
            model.comm().at(4).backward.Predict(four, {}));
  for (const int n : {2, 3, 8, 16, 128}) {
    const Task task = TaskOf(n, 8);
    EXPECT_TRUE(model.CheckSupports(task).ok()) << n;
    const std::vector<int64_t> dims(n, 32);
    EXPECT_EQ(model.BackwardCommCosts(CostContext::For(task), dims),
              model.device_set_comm()->backward.Predict(dims, {}, 8, task.batch_size));
  }
}

TEST_F(DeviceSetCostModelTest, CreateRefusesBadLayoutsAndMixedBatches) {
  const NeuralCostModel good = Make(/*with_fixed_four=*/false);
  DeviceSetCommModels any = *good.device_set_comm();
  any.trained_layouts.push_back({8, 0});
  EXPECT_FALSE(NeuralCostModel::Create("m", "2", good.compute(), {},
                                       NeuralCostModel::CommCosts::kNeural, std::nullopt, any)
                   .ok());
  std::mt19937 rng(4);
  const int in = DeviceSetCommNumInputs(CommDirection::kBackward);
  DeviceSetCommModels mixed{
      good.device_set_comm()->forward,
      *DeviceSetCommModel::Create(
          CommDirection::kBackward, RandomNormalizer(in, rng),
          *Mlp::Create(testing_neural::RandomLayers({in, 4, 1}, rng), false), 2048),
      {{2, 2}}};
  EXPECT_FALSE(NeuralCostModel::Create("m", "3", good.compute(), {},
                                       NeuralCostModel::CommCosts::kNeural, std::nullopt, mixed)
                   .ok());
}

TEST_F(DeviceSetCostModelTest, SaysWhichLayoutsLieOutsideTheTrainedOnes) {
  const NeuralCostModel model = Make(/*with_fixed_four=*/true);
  EXPECT_EQ(model.OutsideTrainedTopology(TaskOf(8, 0).topology), "");
  EXPECT_EQ(model.OutsideTrainedTopology(TaskOf(12, 4).topology), "");  // inside every range
  EXPECT_EQ(model.OutsideTrainedTopology(TaskOf(4, 1).topology), "");   // the fixed pair's
  EXPECT_EQ(model.OutsideTrainedTopology(TaskOf(128, 8).topology),
            "128 devices in 16 hosts of 8 (trained on 2 to 16 devices, hosts of 2 to 8, 1 to 4 "
            "hosts)");
  EXPECT_NE(model.OutsideTrainedTopology(TaskOf(16, 16).topology), "");  // hosts of 16
  EXPECT_NE(model.OutsideTrainedTopology(TaskOf(16, 2).topology), "");   // 8 hosts
  EXPECT_NE(model.OutsideTrainedTopology(TaskOf(1, 0).topology), "");    // 1 device
}

// A plan's cost does not depend on how the devices are numbered (issue: the fixed-N model gave
// the same device groups 3.62 and 3.49 ms in two orders).
TEST_F(DeviceSetCostModelTest, APlanCostsTheSameWithItsDevicesRenumbered) {
  const NeuralCostModel model = Make(/*with_fixed_four=*/false);
  Task task = TaskOf(8, 4);
  std::mt19937 rng(2);
  for (int t = 0; t < 24; ++t) {
    Table table;
    table.name = absl::StrCat("t", t);
    table.rows = 1000 + 997 * t;
    table.dim = 4 << (t % 5);
    table.pooling_factor = 1.0 + t % 7;
    table.access_bins.assign(kNumAccessBins, 1.0 / kNumAccessBins);
    task.tables.push_back(table);
  }
  Plan plan;
  for (int t = 0; t < 24; ++t) {
    plan.tables.push_back(
        {task.tables[t].name,
         ShardingType::kTableWise,
         {Shard{static_cast<int32_t>(rng() % 8), 0, task.tables[t].rows, 0, task.tables[t].dim}}});
  }
  ASSERT_TRUE(EvaluatePlan(task, model, plan).ok());
  // Hosts swapped, devices shuffled inside them.
  const std::vector<int32_t> renumber = {6, 4, 7, 5, 1, 3, 0, 2};
  Plan renumbered = plan;
  for (TableSharding& sharding : renumbered.tables) {
    for (Shard& shard : sharding.shards) shard.device = renumber[shard.device];
  }
  ASSERT_TRUE(EvaluatePlan(task, model, renumbered).ok());
  EXPECT_EQ(renumbered.cost_ms, plan.cost_ms);
  for (int d = 0; d < 8; ++d) {
    EXPECT_EQ(renumbered.devices[renumber[d]].total_ms, plan.devices[d].total_ms) << d;
  }
}

}  // namespace
}  // namespace shardplan
