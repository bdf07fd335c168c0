#include "groundtruth/ground_truth.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "gmock/gmock.h"
#include "groundtruth/cpu/cpu_backend.h"
#include "groundtruth/sim/sim_backend.h"
#include "groundtruth/sim/synthetic_tables.h"
#include "gtest/gtest.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"

namespace shardplan {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

// compute = sum over tables of dim + rows / 100; backward comm = dim sum / 10; forward comm =
// dim sum / 10 + how long the device waits for the latest one. Records what it was asked.
class FakeBackend : public HardwareBackend {
 public:
  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return "fake-1"; }

  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override {
    if (fail_compute) return absl::InternalError("compute broke");
    batches.push_back(batch_size);
    double ms = 0.0;
    std::vector<std::pair<int64_t, int32_t>> seen;
    for (const Table& t : tables) {
      ms += t.dim + t.rows / 100.0;
      seen.push_back({t.rows, t.dim});
      pooling_factors.push_back(t.pooling_factor);
    }
    compute_calls.push_back(seen);
    return ms;
  }

  bool measures_collectives() const override { return collectives; }

  // Every device a demand spans spends demand bytes / 1000 ms in the demand's pass.
  absl::StatusOr<CollectiveCosts> MeasureCollectives(
      const Topology& topology, std::span<const CollectiveDemand> demands) override {
    if (!collectives) return absl::UnimplementedError("no collectives");
    collective_topologies.push_back(&topology);
    const size_t n = static_cast<size_t>(topology.num_devices());
    CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    for (const CollectiveDemand& demand : demands) {
      demand_names.push_back(CollectiveName(demand.collective));
      for (int32_t peer : demand.peers) {
        (demand.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms)[peer] +=
            demand.bytes / 1000.0;
      }
    }
    return costs;
  }

  absl::StatusOr<CommMeasurement> MeasureComm(const Topology* topology,
                                              std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t) override {
    if (no_comm) return absl::UnimplementedError("no interconnect");
    topologies.push_back(topology);
    offsets.emplace_back(start_offsets_ms.begin(), start_offsets_ms.end());
    const double latest = *std::max_element(start_offsets_ms.begin(), start_offsets_ms.end());
    CommMeasurement m;
    for (size_t d = 0; d < dim_sums.size(); ++d) {
      m.backward_ms.push_back(dim_sums[d] / 10.0);
      m.forward_ms.push_back(dim_sums[d] / 10.0 + latest - start_offsets_ms[d]);
    }
    return m;
  }

  bool fail_compute = false;
  bool no_comm = false;
  bool collectives = false;  // measures_collectives()
  std::vector<double> pooling_factors;  // of every table measured, in order
  std::vector<std::string> demand_names;
  std::vector<const Topology*> collective_topologies;
  std::vector<int64_t> batches;
  std::vector<std::vector<std::pair<int64_t, int32_t>>> compute_calls;  // (rows, dim) per call
  std::vector<std::vector<double>> offsets;
  std::vector<const Topology*> topologies;  // what each MeasureComm was told
};

// a (100 x 8) on device 0, b (50 x 4) on device 1, c (10 x 16) split column-wise 8 + 8.
Task TwoDeviceTask() {
  Task task;
  task.tables = {Table{.name = "a", .rows = 100, .dim = 8, .pooling_factor = 1.0},
                 Table{.name = "b", .rows = 50, .dim = 4, .pooling_factor = 1.0},
                 Table{.name = "c", .rows = 10, .dim = 16, .pooling_factor = 1.0}};
  task.topology.memory_bytes = {int64_t{1} << 30, int64_t{1} << 30};
  task.batch_size = 1024;
  return task;
}

Plan SplitPlan() {
  Plan plan = TableWisePlan(TwoDeviceTask(), {0, 1, 0});
  TableSharding& c = plan.tables[2];
  c.sharding_type = ShardingType::kColumnWise;
  c.shards = {Shard{.device = 0, .row_offset = 0, .row_count = 10, .column_offset = 0,
                    .column_count = 8},
              Shard{.device = 1, .row_offset = 0, .row_count = 10, .column_offset = 8,
                    .column_count = 8}};
  return plan;
}

TEST(ScorePlanOnHardwareTest, HandComputedCaseOnFakeBackend) {
  FakeBackend backend;
  const absl::StatusOr<HardwarePlanCost> cost =
      ScorePlanOnHardware(TwoDeviceTask(), SplitPlan(), backend);
  ASSERT_TRUE(cost.ok()) << cost.status();
  // compute: dev0 a (8 + 1) + c half (8 + 0.1) = 17.1; dev1 b (4 + 0.5) + c half = 12.6.
  // dim sums 16, 12 -> bw 1.6, 1.2; compute + bw 18.7, 13.8 -> device 0 arrives 4.9 ms after
  // device 1 (waits 4.9, 0); fw: dev0 1.6 + 0 = 1.6, dev1 1.2 + 4.9 = 6.1; totals 20.3, 19.9.
  EXPECT_THAT(cost->compute_ms, Pointwise(DoubleNear(1e-9), {17.1, 12.6}));
  EXPECT_THAT(cost->backward_comm_ms, Pointwise(DoubleNear(1e-9), {1.6, 1.2}));
  EXPECT_THAT(cost->forward_comm_ms, Pointwise(DoubleNear(1e-9), {1.6, 6.1}));
  EXPECT_THAT(cost->total_ms, Pointwise(DoubleNear(1e-9), {20.3, 19.9}));
  EXPECT_NEAR(cost->cost_ms, 20.3, 1e-9);
  EXPECT_EQ(cost->bottleneck_device, 0);
  EXPECT_TRUE(cost->comm_measured);
  // Shards reach the backend with their own rows and column count as the dim.
  EXPECT_THAT(backend.compute_calls,
              ElementsAre(ElementsAre(std::pair<int64_t, int32_t>{100, 8},
                                      std::pair<int64_t, int32_t>{10, 8}),
                          ElementsAre(std::pair<int64_t, int32_t>{50, 4},
                                      std::pair<int64_t, int32_t>{10, 8})));
  EXPECT_THAT(backend.batches, ElementsAre(1024, 1024));
  ASSERT_EQ(backend.offsets.size(), 2u);
  EXPECT_THAT(backend.offsets[0], ElementsAre(0.0, 0.0));  // backward: no offsets
  EXPECT_THAT(backend.offsets[1], Pointwise(DoubleNear(1e-9), {4.9, 0.0}));
}

TEST(EvaluatePlanOnHardwareTest, TheAllToAllRunsOnTheTaskTopology) {
  const Task task = TwoDeviceTask();
  FakeBackend backend;
  Plan plan = SplitPlan();
  ASSERT_TRUE(EvaluatePlanOnHardware(task, backend, plan).ok());
  ASSERT_EQ(backend.topologies.size(), 2u);
  EXPECT_EQ(backend.topologies[0], &task.topology);
  EXPECT_EQ(backend.topologies[1], &task.topology);
  // A bare placement names no hosts: the backend's own machines.
  FakeBackend placement_backend;
  ASSERT_TRUE(ScorePlacementOnHardware({{task.tables[0]}, {task.tables[1]}}, 1024,
                                       placement_backend)
                  .ok());
  EXPECT_EQ(placement_backend.topologies[0], nullptr);
}

// The same 16-device table-wise plan on h100-sxm hosts of 4 or of 8: more of every device's
// all-to-all crosses hosts on the smaller ones.
TEST(EvaluatePlanOnHardwareTest, DevicesPerHostOfTheTaskChangeTheCommTimes) {
  Task task;
  std::mt19937_64 rng = SampleRng(42, 16);
  task.tables = SyntheticTables(rng, 32, 64);
  std::vector<int32_t> device_of_table;
  for (size_t i = 0; i < task.tables.size(); ++i) {
    task.tables[i].name = "t" + std::to_string(i);
    device_of_table.push_back(static_cast<int32_t>(i % 16));
  }
  task.topology.memory_bytes.assign(16, int64_t{80} << 30);
  task.batch_size = 65536;
  std::vector<double> backward_ms;
  for (int32_t per_host : {4, 8}) {
    task.topology.devices_per_host = per_host;
    absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("h100-sxm", 16);
    ASSERT_TRUE(sim.ok()) << sim.status();
    Plan plan = TableWisePlan(task, device_of_table);
    ASSERT_TRUE(EvaluatePlanOnHardware(task, **sim, plan).ok());
    backward_ms.push_back(plan.devices[0].backward_comm_ms);
    EXPECT_EQ(plan.local_world_size, per_host);
  }
  EXPECT_GT(backward_ms[0], backward_ms[1]);
}

TEST(ScorePlanOnHardwareTest, NoInterconnectMeansComputeOnlyAndIsLabelled) {
  FakeBackend backend;
  backend.no_comm = true;
  const absl::StatusOr<HardwarePlanCost> cost =
      ScorePlanOnHardware(TwoDeviceTask(), SplitPlan(), backend);
  ASSERT_TRUE(cost.ok()) << cost.status();
  EXPECT_FALSE(cost->comm_measured);
  EXPECT_THAT(cost->backward_comm_ms, ElementsAre(0.0, 0.0));
  EXPECT_THAT(cost->forward_comm_ms, ElementsAre(0.0, 0.0));
  EXPECT_NEAR(cost->cost_ms, 17.1, 1e-9);
}

TEST(ScorePlanOnHardwareTest, BackendErrorsAndBadPlansAreReported) {
  FakeBackend backend;
  backend.fail_compute = true;
  EXPECT_EQ(ScorePlanOnHardware(TwoDeviceTask(), SplitPlan(), backend).status(),
            absl::InternalError("compute broke"));

  FakeBackend ok_backend;
  Plan plan = SplitPlan();
  plan.tables[0].shards[0].device = 5;
  EXPECT_EQ(ScorePlanOnHardware(TwoDeviceTask(), plan, ok_backend).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ScorePlanOnHardwareTest, MatchesTheFormulaOnTheNoiselessSimulator) {
  const Task task = TwoDeviceTask();
  absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("rtx2080ti", 2);
  ASSERT_TRUE(sim.ok()) << sim.status();
  const absl::StatusOr<HardwarePlanCost> cost = ScorePlanOnHardware(task, SplitPlan(), **sim);
  ASSERT_TRUE(cost.ok()) << cost.status();

  // The same figures step by step from the backend's own measurements.
  Table c_half = task.tables[2];
  c_half.dim = 8;
  const std::vector<Table> dev0 = {task.tables[0], c_half};
  const std::vector<Table> dev1 = {task.tables[1], c_half};
  const double compute0 = *(*sim)->MeasureCompute(dev0, task.batch_size);
  const double compute1 = *(*sim)->MeasureCompute(dev1, task.batch_size);
  const std::vector<int64_t> dim_sums = {16, 12};
  const std::vector<double> zeros = {0.0, 0.0};
  const CommMeasurement bw = *(*sim)->MeasureComm(&task.topology, dim_sums, zeros, task.batch_size);
  const double end0 = compute0 + bw.backward_ms[0], end1 = compute1 + bw.backward_ms[1];
  const double earliest = std::min(end0, end1);
  const std::vector<double> waits = {end0 - earliest, end1 - earliest};
  const CommMeasurement fw = *(*sim)->MeasureComm(&task.topology, dim_sums, waits, task.batch_size);
  const double total0 = end0 + fw.forward_ms[0], total1 = end1 + fw.forward_ms[1];

  EXPECT_THAT(cost->compute_ms, Pointwise(DoubleNear(1e-12), {compute0, compute1}));
  EXPECT_THAT(cost->total_ms, Pointwise(DoubleNear(1e-12), {total0, total1}));
  EXPECT_DOUBLE_EQ(cost->cost_ms, std::max(total0, total1));
  EXPECT_GT(cost->cost_ms, 0.0);
  EXPECT_TRUE(cost->comm_measured);

  // The placement form gives the same answer for the same tables.
  const absl::StatusOr<HardwarePlanCost> placed =
      ScorePlacementOnHardware({dev0, dev1}, task.batch_size, **sim);
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_DOUBLE_EQ(placed->cost_ms, cost->cost_ms);
}

TEST(ScorePlanOnHardwareTest, InferenceIsTheForwardKernelAloneWithoutBackwardComm) {
  Task task = TwoDeviceTask();
  task.objective = Objective::kInference;
  absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("rtx2080ti", 2);
  ASSERT_TRUE(sim.ok()) << sim.status();
  const absl::StatusOr<HardwarePlanCost> cost = ScorePlanOnHardware(task, SplitPlan(), **sim);
  ASSERT_TRUE(cost.ok()) << cost.status();
  Table c_half = task.tables[2];
  c_half.dim = 8;
  const std::vector<Table> dev0 = {task.tables[0], c_half};
  EXPECT_NEAR(cost->compute_ms[0], *(*sim)->MeasureForwardCompute(dev0, task.batch_size), 1e-12);
  EXPECT_LT(cost->compute_ms[0], *(*sim)->MeasureCompute(dev0, task.batch_size));
  EXPECT_THAT(cost->backward_comm_ms, Pointwise(DoubleNear(0.0), {0.0, 0.0}));
  EXPECT_GT(cost->forward_comm_ms[0], 0.0);
}

TEST(ScorePlanOnHardwareTest, ABackendWithoutAForwardPassAloneRefusesInference) {
  Task task = TwoDeviceTask();
  task.objective = Objective::kInference;
  FakeBackend backend;
  EXPECT_EQ(ScorePlanOnHardware(task, SplitPlan(), backend).status().code(),
            absl::StatusCode::kUnimplemented);
}

// A table-wise and column-wise plan of six synthetic tables on 4 devices (one host), bit for bit
// as before hosts came from the task's topology and row-level shards were costed (commit
// 9c5ac9e): ground truth of TW/CW plans must not move.
TEST(EvaluatePlanOnHardwareTest, TableAndColumnWiseCostsStayBitIdentical) {
  Task task;
  std::mt19937_64 rng = SampleRng(42, 11);
  task.tables = SyntheticTables(rng, 6, 64);
  for (size_t i = 0; i < task.tables.size(); ++i) task.tables[i].name = "t" + std::to_string(i);
  task.topology.memory_bytes.assign(4, int64_t{16} << 30);
  task.batch_size = 65536;
  Plan plan = TableWisePlan(task, {0, 1, 2, 3, 0, 1});
  TableSharding& split = plan.tables[5];
  const int32_t dim = task.tables[5].dim;
  const int64_t rows = task.tables[5].rows;
  split.sharding_type = ShardingType::kColumnWise;
  split.shards = {Shard{.device = 1, .row_offset = 0, .row_count = rows, .column_offset = 0,
                        .column_count = dim / 2},
                  Shard{.device = 3, .row_offset = 0, .row_count = rows,
                        .column_offset = dim / 2, .column_count = dim - dim / 2}};
  struct Pinned {
    const char* profile;
    double cost_ms;
    std::vector<double> compute_ms, backward_ms, forward_ms;
  };
  const std::vector<Pinned> pinned = {
      {"rtx2080ti",
       0x1.e10609683098ep+2,
       {0x1.66f09c73cd32cp+1, 0x1.faffba6ef207cp+0, 0x1.b2bd0d78a942ap-1, 0x1.33baf14cbdd3cp+0},
       std::vector<double>(4, 0x1.2d8dbb2e49ff9p+1),
       {0x1.2d8dbb2e49ff9p+1, 0x1.96fe7a6a9e2e5p+1, 0x1.13e78a21f670cp+2, 0x1.faa0defbb8486p+1}},
      {"h100-sxm",
       0x1.32d76990253p-1,
       {0x1.c51a23e4109ddp-2, 0x1.a56c4a25927bbp-2, 0x1.207b66ca3c9cdp-2, 0x1.370b9da7d8efp-2},
       std::vector<double>(4, 0x1.41295e7873847p-4),
       {0x1.41295e7873847p-4, 0x1.bfe0c5726c0cbp-4, 0x1.e9d2296fe1c42p-3, 0x1.bcb1bbb4a91fcp-3}},
  };
  for (const Pinned& expected : pinned) {
    absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend(expected.profile, 4);
    ASSERT_TRUE(sim.ok()) << sim.status();
    Plan scored = plan;
    ASSERT_TRUE(EvaluatePlanOnHardware(task, **sim, scored).ok());
    EXPECT_EQ(scored.cost_ms, expected.cost_ms) << expected.profile;
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(scored.devices[d].compute_ms, expected.compute_ms[d]) << expected.profile << d;
      EXPECT_EQ(scored.devices[d].backward_comm_ms, expected.backward_ms[d]) << expected.profile << d;
      EXPECT_EQ(scored.devices[d].forward_comm_ms, expected.forward_ms[d]) << expected.profile << d;
    }
  }
}

// Two devices, each its own host: a (100 x 8) replicated on both, b (50 x 4) table-wise on 0,
// c (10 x 16) row-wise, rows 0-5 on device 0 and 6-9 on device 1. Batch 1024.
Plan RowLevelPlan() {
  Plan plan = TableWisePlan(TwoDeviceTask(), {0, 0, 0});
  plan.tables[0].sharding_type = ShardingType::kDataParallel;
  plan.tables[0].shards = {Shard{.device = 0, .row_offset = 0, .row_count = 100,
                                 .column_offset = 0, .column_count = 8},
                           Shard{.device = 1, .row_offset = 0, .row_count = 100,
                                 .column_offset = 0, .column_count = 8}};
  plan.tables[2].sharding_type = ShardingType::kRowWise;
  plan.tables[2].shards = {Shard{.device = 0, .row_offset = 0, .row_count = 6,
                                 .column_offset = 0, .column_count = 16},
                           Shard{.device = 1, .row_offset = 6, .row_count = 4,
                                 .column_offset = 0, .column_count = 16}};
  return plan;
}

TEST(EvaluatePlanOnHardwareTest, RowLevelShardsRunTheirOwnKernelsAndCollectives) {
  Task task = TwoDeviceTask();
  task.topology.devices_per_host = 1;
  FakeBackend backend;
  backend.collectives = true;
  Plan plan = RowLevelPlan();
  ASSERT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
  ASSERT_TRUE(EvaluatePlanOnHardware(task, backend, plan).ok());
  // Device 0: b table-wise, its block of c, its replica of a; device 1: its block of c, its
  // replica of a. Replicas look up their device's half of the batch.
  EXPECT_THAT(backend.batches, ElementsAre(1024, 1024, 512, 1024, 512));
  EXPECT_THAT(backend.compute_calls,
              ElementsAre(ElementsAre(std::pair<int64_t, int32_t>{50, 4}),
                          ElementsAre(std::pair<int64_t, int32_t>{6, 16}),
                          ElementsAre(std::pair<int64_t, int32_t>{100, 8}),
                          ElementsAre(std::pair<int64_t, int32_t>{4, 16}),
                          ElementsAre(std::pair<int64_t, int32_t>{100, 8})));
  // A block serves its rows' share of c's lookups; a replica all of a's for its samples.
  EXPECT_THAT(backend.pooling_factors,
              Pointwise(DoubleNear(1e-12), {1.0, 0.6, 1.0, 0.4, 1.0}));
  EXPECT_THAT(backend.demand_names, ElementsAre("all_reduce", "reduce_scatter", "all_gather"));
  EXPECT_EQ(backend.collective_topologies[0], &task.topology);
  // compute: dev0 4.5 + 16.06 + 9 = 29.56, dev1 16.04 + 9 = 25.04. Collectives (bytes / 1000):
  // reduce-scatter and all-gather 1024 x 16 x 4 = 65.536 each on both devices, all-reduce of
  // a's 3200 bytes 3.2 backward. The all-to-all carries b's 4 columns: bw 0.4 and 0.
  EXPECT_NEAR(plan.devices[0].compute_ms, 29.56, 1e-9);
  EXPECT_NEAR(plan.devices[1].compute_ms, 25.04, 1e-9);
  EXPECT_NEAR(plan.devices[0].backward_comm_ms, 0.4 + 65.536 + 3.2, 1e-9);
  EXPECT_NEAR(plan.devices[1].backward_comm_ms, 65.536 + 3.2, 1e-9);
  EXPECT_EQ(plan.devices[1].dim_sum, 0);
}

TEST(EvaluatePlanOnHardwareTest, WithoutColumnLevelShardsThereIsNoAllToAll) {
  Task task = TwoDeviceTask();
  FakeBackend backend;
  backend.collectives = true;
  Plan plan = RowLevelPlan();
  plan.tables.erase(plan.tables.begin() + 1);  // b, the only table-wise table
  task.tables.erase(task.tables.begin() + 1);
  ASSERT_TRUE(EvaluatePlanOnHardware(task, backend, plan).ok());
  EXPECT_THAT(backend.offsets, ::testing::IsEmpty());  // MeasureComm never asked
}

TEST(EvaluatePlanOnHardwareTest, ABackendWithoutCollectivesRefusesRowLevelShards) {
  FakeBackend backend;  // measures_collectives() false
  Plan plan = RowLevelPlan();
  const absl::Status refused = EvaluatePlanOnHardware(TwoDeviceTask(), backend, plan);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("DATA_PARALLEL"));
  EXPECT_THAT(backend.batches, ::testing::IsEmpty());  // refused before measuring
}

// 8 devices of h100-sxm, 2 hosts of 4, and the plans TorchRec would make of a big and a small
// table: every type is measured, with figures of the simulator's magnitude.
class RowLevelOnSimulatorTest : public ::testing::Test {
 protected:
  RowLevelOnSimulatorTest() {
    std::mt19937_64 rng = SampleRng(42, 8);
    task_.tables = SyntheticTables(rng, 2, 64);
    task_.tables[0].name = "big";
    task_.tables[0].rows = 8'000'000;
    task_.tables[0].pooling_factor = 20.0;
    task_.tables[1].name = "small";
    task_.tables[1].rows = 20'000;
    task_.topology.memory_bytes.assign(8, int64_t{80} << 30);
    task_.topology.devices_per_host = 4;
    task_.batch_size = 65536;
  }

  // `big` cut into `devices.size()` equal row blocks; `small` table-wise on device 0.
  Plan RowPlan(ShardingType type, std::vector<int32_t> devices) const {
    Plan plan = TableWisePlan(task_, {0, 0});
    TableSharding& big = plan.tables[0];
    big.sharding_type = type;
    big.shards.clear();
    const int64_t block = task_.tables[0].rows / static_cast<int64_t>(devices.size());
    for (size_t i = 0; i < devices.size(); ++i) {
      big.shards.push_back(Shard{.device = devices[i], .row_offset = block * int64_t(i),
                                 .row_count = block, .column_offset = 0,
                                 .column_count = task_.tables[0].dim});
    }
    return plan;
  }

  // `small` replicated on every device; `big` table-wise on device 0.
  Plan DataParallelPlan() const {
    Plan plan = TableWisePlan(task_, {0, 0});
    TableSharding& small = plan.tables[1];
    small.sharding_type = ShardingType::kDataParallel;
    small.shards.clear();
    for (int32_t d = 0; d < 8; ++d) {
      small.shards.push_back(Shard{.device = d, .row_offset = 0,
                                   .row_count = task_.tables[1].rows, .column_offset = 0,
                                   .column_count = task_.tables[1].dim});
    }
    return plan;
  }

  Plan Evaluate(Plan plan) const {
    EXPECT_TRUE(ValidatePlan(task_, plan).ok()) << ValidatePlan(task_, plan);
    absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("h100-sxm", 8);
    EXPECT_TRUE(sim.ok()) << sim.status();
    const absl::Status evaluated = EvaluatePlanOnHardware(task_, **sim, plan);
    EXPECT_TRUE(evaluated.ok()) << evaluated;
    for (const DeviceCost& device : plan.devices) {
      EXPECT_TRUE(std::isfinite(device.total_ms)) << device.device;
      EXPECT_GT(device.total_ms, 0.0) << device.device;
    }
    EXPECT_LT(plan.cost_ms, 100.0);  // h100 plans cost a few ms (docs/simulator.md)
    EXPECT_EQ(plan.cost_kind, "ground_truth");
    return plan;
  }

  Task task_;
};

TEST_F(RowLevelOnSimulatorTest, RowWiseSpreadsTheComputeAndReducesOverTheWorld) {
  const Plan table_wise = Evaluate(TableWisePlan(task_, {0, 0}));
  const Plan row_wise = Evaluate(RowPlan(ShardingType::kRowWise, {0, 1, 2, 3, 4, 5, 6, 7}));
  // Each device looks up an eighth of big's lookups: far less than device 0 alone did.
  EXPECT_LT(row_wise.devices[5].compute_ms, table_wise.devices[0].compute_ms / 2);
  for (const DeviceCost& device : row_wise.devices) {
    EXPECT_GT(device.forward_comm_ms, 0.0) << device.device;   // the reduce-scatter
    EXPECT_GT(device.backward_comm_ms, 0.0) << device.device;  // the all-gather
  }
}

TEST_F(RowLevelOnSimulatorTest, TableRowWiseStaysInItsHostAndExchangesAcrossHosts) {
  const Plan plan = Evaluate(RowPlan(ShardingType::kTableRowWise, {4, 5, 6, 7}));
  // Host 0's devices hold none of big but receive its outputs in the cross-host all-to-all.
  for (const DeviceCost& device : plan.devices) {
    EXPECT_GT(device.forward_comm_ms, 0.0) << device.device;
  }
  // Host 1 also reduces in the host: more comm than host 0's devices (device 0 also waits).
  EXPECT_GT(plan.devices[5].backward_comm_ms, plan.devices[1].backward_comm_ms);
}

TEST_F(RowLevelOnSimulatorTest, DataParallelReplicasLookUpTheirShareAndAllReduce) {
  const Plan table_wise = Evaluate(TableWisePlan(task_, {0, 1}));
  const Plan plan = Evaluate(DataParallelPlan());
  // A replica on device 1 serves an eighth of the batch: cheaper than small on its own.
  EXPECT_LT(plan.devices[1].compute_ms, table_wise.devices[1].compute_ms);
  for (const DeviceCost& device : plan.devices) {
    EXPECT_GT(device.backward_comm_ms, 0.0) << device.device;  // all-reduce and update
  }
}

TEST_F(RowLevelOnSimulatorTest, TheCpuBackendRefusesEveryRowLevelType) {
  CpuBackendOptions options;
  options.flush_bytes = 1 << 20;
  CpuBackend cpu(options);
  for (const auto& [plan, type] :
       {std::pair{RowPlan(ShardingType::kRowWise, {0, 1, 2, 3, 4, 5, 6, 7}), "ROW_WISE"},
        std::pair{RowPlan(ShardingType::kTableRowWise, {4, 5, 6, 7}), "TABLE_ROW_WISE"},
        std::pair{DataParallelPlan(), "DATA_PARALLEL"}}) {
    Plan scored = plan;
    const absl::Status refused = EvaluatePlanOnHardware(task_, cpu, scored);
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << type;
    EXPECT_THAT(refused.message(), HasSubstr(absl::StrCat("cannot cost ", type, " shards")));
  }
}

}  // namespace
}  // namespace shardplan

namespace shardplan {
namespace {

// A sequence table (8M x 64, pooling 100, Zipf 1 over its ranks) on 8 h100-sxm devices, 2 hosts
// of 4: row-wise over the world, or FlexShard's three tiers in rank order (the hottest 10,000
// ranks on every device, the next 200,000 as 4 slices on local rank w of both hosts, the rest
// row-wise).
class RoutedOnSimulatorTest : public ::testing::Test {
 protected:
  RoutedOnSimulatorTest() {
    Table table;
    table.name = "seq";
    table.rows = 8'000'000;
    table.dim = 64;
    table.pooling_factor = 100.0;
    table.pooling = Pooling::kSequence;
    table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
    task_.tables = {table};
    task_.topology.memory_bytes.assign(8, int64_t{80} << 30);
    task_.topology.devices_per_host = 4;
    task_.batch_size = 8 * 1024;
  }

  Shard Rows(int32_t device, int64_t offset, int64_t count) const {
    return Shard{.device = device, .row_offset = offset, .row_count = count,
                 .column_offset = 0, .column_count = 64};
  }

  // Row blocks of rows [from, rows) over the 8 devices, in natural (hashed) order.
  Plan RowWise(int64_t from) const {
    Plan plan = TableWisePlan(task_, {0});
    TableSharding& seq = plan.tables[0];
    seq.sharding_type = ShardingType::kRowWise;
    seq.shards.clear();
    const int64_t block = (task_.tables[0].rows - from) / 8;
    for (int32_t d = 0; d < 8; ++d) seq.shards.push_back(Rows(d, from + d * block, block));
    return plan;
  }

  // The tiers as rank bands: each holds its ranks, its ids hashed within it.
  Plan ThreeTiers() const {
    Plan plan = RowWise(210'000);
    plan.tables[0].row_order = RowOrder::kFrequencyRank;
    plan.tables[0].rank_bands = {10'000, 210'000};
    std::vector<Shard>& shards = plan.tables[0].shards;
    for (int32_t d = 0; d < 8; ++d) shards.push_back(Rows(d, 0, 10'000));
    for (int32_t d = 0; d < 8; ++d) shards.push_back(Rows(d, 10'000 + (d % 4) * 50'000, 50'000));
    return plan;
  }

  Plan Measure(Plan plan, const Task& task) const {
    EXPECT_TRUE(ValidatePlan(task, plan).ok()) << ValidatePlan(task, plan);
    absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("h100-sxm", 8);
    EXPECT_TRUE(sim.ok()) << sim.status();
    const absl::Status measured = EvaluatePlanOnHardware(task, **sim, plan);
    EXPECT_TRUE(measured.ok()) << measured;
    return plan;
  }

  Task task_;
};

TEST_F(RoutedOnSimulatorTest, HotRowsServedLocallyCutTheExchangesAndAddAnAllReduce) {
  const Plan row_wise = Measure(RowWise(0), task_);
  const Plan tiers = Measure(ThreeTiers(), task_);
  ASSERT_EQ(tiers.devices.size(), 8u);
  // Zipf(1) over 8M ranks: the hottest 210,000 serve about 77% of the lookups, which the
  // three tiers look up on the requester or in its host instead of across the world.
  for (int d = 0; d < 8; ++d) {
    EXPECT_LT(tiers.devices[d].forward_comm_ms, 0.5 * row_wise.devices[d].forward_comm_ms) << d;
    EXPECT_GT(tiers.devices[d].memory_bytes, row_wise.devices[d].memory_bytes) << d;
  }
  // Backward: the gradients retrace the exchanges, then the replicated groups all-reduce
  // (the slices across the NIC) and update: more than the exchanges alone.
  for (int d = 0; d < 8; ++d) {
    EXPECT_GT(tiers.devices[d].backward_comm_ms, tiers.devices[d].forward_comm_ms) << d;
  }

  // Inference: the forward exchanges only, no all-reduce.
  Task inference = task_;
  inference.objective = Objective::kInference;
  const Plan served = Measure(ThreeTiers(), inference);
  for (int d = 0; d < 8; ++d) EXPECT_DOUBLE_EQ(served.devices[d].backward_comm_ms, 0.0) << d;
}

// A route that sends a requester to the other host's replica makes the exchange cross the NIC.
TEST_F(RoutedOnSimulatorTest, RoutingAcrossHostsCostsTheNic) {
  const Plan local = Measure(ThreeTiers(), task_);
  Plan remote = ThreeTiers();
  // Device 0 reads slice 0 (ranks [10,000, 60,000)) from device 4, on the other host: shard
  // 8 + 8 + 4 (the row-wise blocks, the hot replicas, then the slices in device order).
  remote.tables[0].routes.push_back(RowRoute{.requester = 0, .shard = 20});
  const Plan measured = Measure(remote, task_);
  EXPECT_GT(measured.devices[4].forward_comm_ms, local.devices[4].forward_comm_ms);
}

}  // namespace
}  // namespace shardplan
