#include "groundtruth/sim/sim_backend.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "groundtruth/sim/collective_model.h"
#include "groundtruth/sim/comm_model.h"
#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::kBatch;
using sim_test::Synthetic;
using ::testing::HasSubstr;

std::unique_ptr<HardwareBackend> Make(const std::string& profile, int devices,
                                      SimOptions options = {}) {
  absl::StatusOr<std::unique_ptr<HardwareBackend>> backend =
      MakeSimBackend(profile, devices, options);
  EXPECT_TRUE(backend.ok()) << backend.status();
  return backend.ok() ? *std::move(backend) : nullptr;
}

TEST(SimBackendTest, NamesItsBackendAndProfile) {
  std::unique_ptr<HardwareBackend> backend = Make("rtx2080ti", 4);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "sim");
  EXPECT_EQ(backend->hardware_profile(), "sim-rtx2080ti");
  EXPECT_EQ(Make("h100-sxm", 8)->hardware_profile(), "sim-h100-sxm");
  EXPECT_EQ(Make("a100-sxm4", 8)->hardware_profile(), "sim-a100-sxm4");
}

TEST(SimBackendTest, RefusesUnknownProfilesAndBadOptions) {
  absl::StatusOr<std::unique_ptr<HardwareBackend>> unknown = MakeSimBackend("tpu", 4, {});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("h100-sxm, rtx2080ti"));
  EXPECT_EQ(MakeSimBackend("rtx2080ti", 0, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeSimBackend("rtx2080ti", 4, {.noise_sigma = -0.1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SimBackendTest, CommNeedsOneEntryPerDevice) {
  std::unique_ptr<HardwareBackend> backend = Make("rtx2080ti", 4);
  const std::vector<int64_t> three = {1, 2, 3};
  const std::vector<double> four = {0, 0, 0, 0};
  EXPECT_EQ(backend->MeasureComm(nullptr, three, four, kBatch).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<int64_t> negative = {1, -2, 3, 4};
  EXPECT_EQ(backend->MeasureComm(nullptr, negative, four, kBatch).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SimBackendTest, RefusesMalformedTablesAndBatches) {
  std::unique_ptr<HardwareBackend> backend = Make("rtx2080ti", 4);
  std::vector<Table> tables = Synthetic(9, 3);
  EXPECT_TRUE(backend->MeasureCompute(tables, kBatch).ok());
  EXPECT_EQ(backend->MeasureCompute(tables, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
  tables[1].dim = 0;
  absl::StatusOr<double> zero_dim = backend->MeasureCompute(tables, kBatch);
  EXPECT_EQ(zero_dim.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero_dim.status().message(), HasSubstr("tables[1]"));
  tables[1].dim = 8;
  tables[2].pooling_factor = -1.0;
  EXPECT_EQ(backend->MeasureCompute(tables, kBatch).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*backend->MeasureCompute({}, kBatch), 0.0);  // an empty device
}

TEST(SimBackendTest, WithoutNoiseMeasurementsRepeatExactly) {
  std::unique_ptr<HardwareBackend> backend = Make("rtx2080ti", 4);
  const std::vector<Table> tables = Synthetic(7, 9);
  const double first = *backend->MeasureCompute(tables, kBatch);
  EXPECT_EQ(*backend->MeasureCompute(tables, kBatch), first);
  const std::vector<int64_t> dims = {100, 300, 50, 200};
  const std::vector<double> offsets = {0, 4, 9, 1};
  const CommMeasurement a = *backend->MeasureComm(nullptr, dims, offsets, kBatch);
  const CommMeasurement b = *backend->MeasureComm(nullptr, dims, offsets, kBatch);
  EXPECT_EQ(a.forward_ms, b.forward_ms);
  EXPECT_EQ(a.backward_ms, b.backward_ms);
}

std::vector<double> NoisyComputes(uint64_t seed, int n) {
  std::unique_ptr<HardwareBackend> backend =
      Make("rtx2080ti", 4, {.noise_sigma = 0.05, .seed = seed});
  const std::vector<Table> tables = Synthetic(8, 6);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(*backend->MeasureCompute(tables, kBatch));
  return out;
}

TEST(SimBackendTest, NoiseIsReproduciblePerSeedAndCentredOnTheNoiselessValue) {
  const std::vector<Table> tables = Synthetic(8, 6);
  const double exact = *Make("rtx2080ti", 4)->MeasureCompute(tables, kBatch);
  const std::vector<double> a = NoisyComputes(1, 201);
  EXPECT_EQ(a, NoisyComputes(1, 201));
  EXPECT_NE(a, NoisyComputes(2, 201));
  EXPECT_NE(a[0], a[1]);  // each measurement draws anew
  std::vector<double> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(sorted[100] / exact, 1.0, 0.02);  // median-preserving
  EXPECT_GT(sorted.back() / sorted.front(), 1.1);
}

TEST(SimBackendTest, BeginSampleRestartsTheNoiseStreamPerSample) {
  const std::vector<Table> tables = Synthetic(8, 6);
  std::unique_ptr<HardwareBackend> sequential =
      Make("rtx2080ti", 4, {.noise_sigma = 0.05, .seed = 9});
  std::vector<double> values;
  for (int id = 0; id < 4; ++id) {
    sequential->BeginSample(id);
    values.push_back(*sequential->MeasureCompute(tables, kBatch));
  }
  // A fresh backend (a resumed collection) measuring only sample 2 draws what sample 2 drew.
  std::unique_ptr<HardwareBackend> resumed = Make("rtx2080ti", 4, {.noise_sigma = 0.05, .seed = 9});
  resumed->BeginSample(2);
  EXPECT_EQ(*resumed->MeasureCompute(tables, kBatch), values[2]);
  EXPECT_NE(values[1], values[2]);
}

TEST(SimBackendTest, NoisyCommIsReproduciblePerSeed) {
  const std::vector<int64_t> dims = {100, 300, 50, 200};
  const std::vector<double> offsets = {0, 4, 9, 1};
  auto measure = [&](uint64_t seed) {
    std::unique_ptr<HardwareBackend> backend =
        Make("rtx2080ti", 4, {.noise_sigma = 0.1, .seed = seed});
    std::vector<double> values;
    for (int i = 0; i < 3; ++i) {
      const CommMeasurement comm = *backend->MeasureComm(nullptr, dims, offsets, kBatch);
      values.insert(values.end(), comm.forward_ms.begin(), comm.forward_ms.end());
      values.insert(values.end(), comm.backward_ms.begin(), comm.backward_ms.end());
    }
    return values;
  };
  EXPECT_EQ(measure(5), measure(5));
  EXPECT_NE(measure(5), measure(6));
}

TEST(SimBackendTest, NoisyCommKeepsTheWaitExact) {
  std::unique_ptr<HardwareBackend> noisy = Make("rtx2080ti", 4, {.noise_sigma = 0.1, .seed = 3});
  const std::vector<int64_t> dims = {100, 300, 50, 200};
  const std::vector<double> offsets = {0, 4, 9, 1};
  const CommMeasurement comm = *noisy->MeasureComm(nullptr, dims, offsets, kBatch);
  // The earliest device waits 9 ms for the latest; noise only touches the transfer.
  EXPECT_GT(comm.forward_ms[0], 9.0);
  EXPECT_NE(comm.backward_ms[0], comm.backward_ms[1]);
}

// The reference plan cost (docs/design.md section 2) of a greedy placement, on the backend.
double PlanCost(HardwareBackend& backend, const std::vector<Table>& tables, int devices) {
  std::vector<double> single(tables.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    single[i] = *backend.MeasureCompute(std::vector<Table>{tables[i]}, kBatch);
  }
  std::vector<int> order(tables.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return single[a] > single[b]; });
  std::vector<std::vector<Table>> placed(devices);
  std::vector<double> load(devices, 0.0);
  std::vector<int64_t> dim_sums(devices, 0);
  for (int i : order) {
    const int d = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    placed[d].push_back(tables[i]);
    load[d] += single[i];
    dim_sums[d] += tables[i].dim;
  }
  std::vector<double> compute(devices), waits(devices);
  const CommMeasurement bw =
      *backend.MeasureComm(nullptr, dim_sums, std::vector<double>(devices, 0.0), kBatch);
  for (int d = 0; d < devices; ++d) {
    compute[d] = *backend.MeasureCompute(placed[d], kBatch);
    waits[d] = compute[d] + bw.backward_ms[d];
  }
  const double earliest = *std::min_element(waits.begin(), waits.end());
  for (double& w : waits) w -= earliest;
  const CommMeasurement fw = *backend.MeasureComm(nullptr, dim_sums, waits, kBatch);
  double cost = 0.0;
  for (int d = 0; d < devices; ++d) {
    cost = std::max(cost, compute[d] + bw.backward_ms[d] + fw.forward_ms[d]);
  }
  return cost;
}

TEST(SimBackendTest, TableOneLikeTasksCostTensOfMillisecondsAndNvlinkIsFaster) {
  std::unique_ptr<HardwareBackend> rtx = Make("rtx2080ti", 4);
  std::unique_ptr<HardwareBackend> h100 = Make("h100-sxm", 4);
  for (uint64_t task = 0; task < 4; ++task) {
    const std::vector<Table> tables = Synthetic(200 + task, 35, 128);
    const double rtx_cost = PlanCost(*rtx, tables, 4);
    EXPECT_GT(rtx_cost, 10.0) << "task " << task;
    EXPECT_LT(rtx_cost, 100.0) << "task " << task;
    EXPECT_LT(PlanCost(*h100, tables, 4), rtx_cost / 2) << "task " << task;
  }
}

// The noisy path, bit for bit as before hosts came from the task's topology (commit 9c5ac9e):
// collection draws exactly this noise.
TEST(SimBackendTest, NoisyMeasurementsStayBitIdentical) {
  std::unique_ptr<HardwareBackend> backend = Make("rtx2080ti", 8, {.noise_sigma = 0.02, .seed = 7});
  backend->BeginSample(3);
  const std::vector<int64_t> dims = {512, 64, 128, 300, 0, 256, 1000, 40};
  const std::vector<double> offsets = {0.5, 0.0, 2.25, 1.0, 3.0, 0.0, 0.125, 4.0};
  EXPECT_EQ(*backend->MeasureCompute(Synthetic(5, 7), kBatch), 0x1.e1c728f019bf8p+1);
  const CommMeasurement comm = *backend->MeasureComm(nullptr, dims, offsets, kBatch);
  EXPECT_EQ(comm.forward_ms,
            (std::vector<double>{0x1.3e987f34b4eb9p+5, 0x1.5090726311dep+5, 0x1.2e59744d75dafp+5,
                                 0x1.4211fb81a7b14p+5, 0x1.2eb7687ab48bfp+5, 0x1.500828c391d78p+5,
                                 0x1.42066a789eb4dp+5, 0x1.24fa449e5e125p+5}));
  EXPECT_EQ(comm.backward_ms,
            (std::vector<double>{0x1.1de1d48ee647fp+5, 0x1.27fda8a3e16d7p+5, 0x1.2715aac10ce12p+5,
                                 0x1.30847fc387cf9p+5, 0x1.2654e5acb534cp+5, 0x1.2d9107518cda6p+5,
                                 0x1.2b06278ae0f2ap+5, 0x1.30f24217a3b29p+5}));
}

TEST(SimBackendTest, MeasuresOnTheTaskTopologyOrTheProfileMachines) {
  std::unique_ptr<HardwareBackend> backend = Make("h100-sxm", 16);
  const std::vector<int64_t> dims(16, 128);
  const std::vector<double> zeros(16, 0.0);
  const Topology four = sim_test::Hosts(16, 4);
  const Topology eight = sim_test::Hosts(16, 8);
  const CommMeasurement on_four = *backend->MeasureComm(&four, dims, zeros, kBatch);
  const CommMeasurement on_eight = *backend->MeasureComm(&eight, dims, zeros, kBatch);
  EXPECT_GT(on_four.backward_ms[0], on_eight.backward_ms[0]);
  EXPECT_EQ(on_four.backward_ms,
            SimulateComm(sim_test::Profile("h100-sxm"), four, dims, zeros, kBatch).backward_ms);
  // No topology: the profile's machines, hosts of 8.
  EXPECT_EQ(backend->MeasureComm(nullptr, dims, zeros, kBatch)->backward_ms, on_eight.backward_ms);

  const Topology wrong = sim_test::Hosts(8);
  const absl::Status mismatch = backend->MeasureComm(&wrong, dims, zeros, kBatch).status();
  EXPECT_EQ(mismatch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatch.message(), HasSubstr("topology: has 8 devices"));
}

CollectiveDemand AllReduce(std::vector<int32_t> replicas, double bytes) {
  CollectiveDemand demand;
  demand.collective = Collective::kAllReduce;
  demand.pass = Pass::kBackward;
  demand.sharding = ShardingType::kDataParallel;
  demand.devices = replicas;
  demand.peers = std::move(replicas);
  demand.bytes = bytes;
  return demand;
}

TEST(SimBackendTest, MeasuresCollectivesAsTheCollectiveModel) {
  std::unique_ptr<HardwareBackend> backend = Make("h100-sxm", 4);
  EXPECT_TRUE(backend->measures_collectives());
  const Topology topology = sim_test::Hosts(4, 2);
  const std::vector<CollectiveDemand> demands = {AllReduce({0, 1, 2, 3}, 1 << 20)};
  const absl::StatusOr<CollectiveCosts> costs = backend->MeasureCollectives(topology, demands);
  ASSERT_TRUE(costs.ok()) << costs.status();
  const CollectiveCosts expected =
      SimulateCollectives(sim_test::Profile("h100-sxm"), topology, demands);
  EXPECT_EQ(costs->forward_ms, expected.forward_ms);
  EXPECT_EQ(costs->backward_ms, expected.backward_ms);
}

TEST(SimBackendTest, NoisyCollectivesAreReproducibleAndCentred) {
  const Topology topology = sim_test::Hosts(4);
  const std::vector<CollectiveDemand> demands = {AllReduce({0, 1, 2, 3}, 1 << 24)};
  const double exact = (*Make("h100-sxm", 4)->MeasureCollectives(topology, demands)).backward_ms[0];
  std::unique_ptr<HardwareBackend> a = Make("h100-sxm", 4, {.noise_sigma = 0.05, .seed = 3});
  std::unique_ptr<HardwareBackend> b = Make("h100-sxm", 4, {.noise_sigma = 0.05, .seed = 3});
  const CollectiveCosts noisy = *a->MeasureCollectives(topology, demands);
  EXPECT_EQ(noisy.backward_ms, b->MeasureCollectives(topology, demands)->backward_ms);
  EXPECT_NE(noisy.backward_ms[0], noisy.backward_ms[1]);  // each device draws its own factor
  EXPECT_NEAR(noisy.backward_ms[0] / exact, 1.0, 0.3);
}

TEST(SimBackendTest, RefusesCollectivesThatNameNoRealPeers) {
  std::unique_ptr<HardwareBackend> backend = Make("h100-sxm", 4);
  const Topology topology = sim_test::Hosts(4);
  auto message = [&](CollectiveDemand demand) {
    const absl::Status status =
        backend->MeasureCollectives(topology, std::vector<CollectiveDemand>{std::move(demand)})
            .status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  EXPECT_EQ(message(AllReduce({}, 8)), "demands[0].peers: empty");
  EXPECT_THAT(message(AllReduce({0, 4}, 8)), HasSubstr("demands[0].peers: device 4"));
  EXPECT_THAT(message(AllReduce({1, 1}, 8)), HasSubstr("repeated"));
  CollectiveDemand outsider = AllReduce({0, 1}, 8);
  outsider.devices = {2};
  EXPECT_THAT(message(outsider), HasSubstr("demands[0].devices: device 2 is not among"));
  EXPECT_THAT(message(AllReduce({0, 1}, -1.0)), HasSubstr("demands[0].bytes"));
  const Topology eight = sim_test::Hosts(8);
  EXPECT_EQ(backend->MeasureCollectives(eight, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardplan
