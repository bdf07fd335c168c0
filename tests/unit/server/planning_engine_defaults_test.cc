// The server's default choices for a request that leaves them open: the model chosen for the
// task's hardware (and the warning when the task names none), and the fallbacks that keep a
// table larger than every device plannable: an algorithm and a model that can hold it, or a
// refusal that names which would.

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "prometheus/text_serializer.h"
#include "server/hardware.h"
#include "server/metrics.h"
#include "server/planning_engine.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::kGiB;
using server_test::SmallTask;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A stand-in for a neural bundle with comm models for every device count: flat costs, and the
// column level only unless it `costs_every_type` (as the version-6 bundles will).
class StandInModel final : public CostModel {
 public:
  StandInModel(std::string id, bool costs_every_type)
      : id_(std::move(id)), costs_every_type_(costs_every_type) {}
  std::string id() const override { return id_; }
  absl::Status CheckSupports(const Task&) const override { return absl::OkStatus(); }
  bool CostsShardingType(ShardingType type) const override {
    return costs_every_type_ || IsColumnLevel(type);
  }
  double ComputeCost(const CostContext&, std::span<const ShardView> shards) const override {
    double cost = 0.0;
    for (const ShardView& shard : shards) cost += 1e-3 * shard.columns;
    return cost;
  }
  std::vector<double> BackwardCommCosts(const CostContext&,
                                        std::span<const int64_t> dim_sums) const override {
    return std::vector<double>(dim_sums.size(), 0.0);
  }
  std::vector<double> ForwardCommCosts(const CostContext&, std::span<const int64_t> dim_sums,
                                       std::span<const double>) const override {
    return std::vector<double>(dim_sums.size(), 0.0);
  }
  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand>) const override {
    const size_t n = static_cast<size_t>(context.topology->num_devices());
    return {std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  }

 private:
  std::string id_;
  bool costs_every_type_;
};

// The README's task: a 30 GiB dim-4 fp32 table (2013265920 rows) beside three ordinary ones,
// on eight 16 GiB devices.
Task HugeTableTask() {
  Task task = SmallTask(3, 8);
  Table huge;
  huge.name = "huge";
  huge.rows = 30 * kGiB / 16;
  huge.dim = 4;
  huge.pooling_factor = 1.0;
  task.tables.push_back(huge);
  return task;
}

const TableSharding& ShardingOf(const Plan& plan, const std::string& table) {
  return *std::find_if(plan.tables.begin(), plan.tables.end(),
                       [&](const TableSharding& t) { return t.table == table; });
}

class PlanningEngineDefaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinModels(models_).ok());
    UseDefaultAlgorithm("neuroshard");
  }

  void UseDefaultAlgorithm(const std::string& name) {
    PlanningEngineOptions options;
    options.default_algorithm = name;
    engine_ = std::make_unique<PlanningEngine>(&algorithms_, &models_, &cache_, &metrics_,
                                               std::move(options));
  }

  // A bundle of `hardware_profile` created at `created`.
  void AddNeural(const std::string& name, const std::string& version, const std::string& created,
                 const std::string& hardware_profile, bool costs_every_type = false) {
    ModelManifest manifest;
    manifest.name = name;
    manifest.version = version;
    manifest.kind = "neural";
    manifest.backend = "sim";
    manifest.hardware_profile = hardware_profile;
    manifest.created = created;
    ASSERT_TRUE(
        models_.Add(manifest, std::make_shared<const StandInModel>(manifest.id(), costs_every_type))
            .ok());
  }

  absl::StatusOr<PlanningResult> PlanIt(Task task, std::string algorithm = "",
                                        std::string model = "") {
    PlanningRequest request;
    request.task = std::move(task);
    request.algorithm = std::move(algorithm);
    request.model = std::move(model);
    absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(std::move(request));
    if (!prepared.ok()) return prepared.status();
    const StopSignal stop;
    return engine_->Run(*prepared, stop, nullptr);
  }

  std::string Metrics() {
    return prometheus::TextSerializer().Serialize(metrics_.registry()->Collect());
  }

  AlgorithmRegistry algorithms_ = BuiltinAlgorithms();
  ModelRegistry models_;
  ServerMetrics metrics_;
  PlanCache cache_{int64_t{1} << 20};
  std::unique_ptr<PlanningEngine> engine_;
};

TEST_F(PlanningEngineDefaultsTest, TheModelIsChosenForTheTasksHardware) {
  AddNeural("sim-rtx2080ti", "5", "2026-01-01T00:00:00Z", "sim-rtx2080ti");
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  Task task = SmallTask(6, 4);
  task.topology.hardware = "rtx2080ti";
  absl::StatusOr<PlanningResult> rtx = PlanIt(task);
  ASSERT_TRUE(rtx.ok()) << rtx.status();
  EXPECT_EQ(rtx->plan.cost_model, "sim-rtx2080ti@5");  // not the newer H100 bundle
  EXPECT_THAT(rtx->selection, HasSubstr("model: sim-rtx2080ti@5, the newest loaded model that "
                                        "covers 4 devices of rtx2080ti (no model named)"));
  EXPECT_TRUE(rtx->warnings.empty());

  task.topology.hardware = "h100-sxm";
  absl::StatusOr<PlanningResult> h100 = PlanIt(task);
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_EQ(h100->plan.cost_model, "sim-h100-sxm@5");
  // The hardware chose the model, whose version is in the key already: the same request that
  // names the model shares the plan.
  Task unnamed = task;
  unnamed.topology.hardware.clear();
  absl::StatusOr<PlanningResult> named = PlanIt(unnamed, "", "sim-h100-sxm@5");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_TRUE(named->cache_hit);
  EXPECT_EQ(named->request_hash, h100->request_hash);

  // A known device without a model of its own: analytic@1, saying so.
  task.topology.hardware = "a100-sxm4";
  absl::StatusOr<PlanningResult> a100 = PlanIt(task);
  ASSERT_TRUE(a100.ok()) << a100.status();
  EXPECT_EQ(a100->plan.cost_model, "analytic@1");
  EXPECT_THAT(a100->selection, HasSubstr("model: analytic@1, as no loaded model covers 4 "
                                         "devices of a100-sxm4 (no model named)"));
}

TEST_F(PlanningEngineDefaultsTest, ATaskThatNamesNoHardwareIsToldWhichItsCostsAssume) {
  AddNeural("sim-rtx2080ti", "5", "2026-01-01T00:00:00Z", "sim-rtx2080ti");
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  absl::StatusOr<PlanningResult> result = PlanIt(SmallTask(6, 4));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "sim-h100-sxm@5");
  EXPECT_THAT(result->selection,
              HasSubstr("model: sim-h100-sxm@5, the newest loaded model that covers 4 devices "
                        "(no model named, and the task names no hardware, so its costs assume "
                        "h100-sxm)"));
  ASSERT_EQ(result->warnings.size(), 1u);
  const PlanWarning& warning = result->warnings[0];
  EXPECT_EQ(warning.code, kHardwareAssumed);
  EXPECT_EQ(warning.field, "task.topology.hardware");
  EXPECT_THAT(warning.message,
              StartsWith("the task names no hardware, so its costs assume h100-sxm, the "
                         "hardware cost model sim-h100-sxm@5 was trained on; name the devices' "
                         "hardware (known: a100-sxm4, a100-sxm4-roce, h100-sxm, rtx2080ti)"));
  EXPECT_THAT(Metrics(), HasSubstr("shardplan_plan_warnings_total{code=\"HARDWARE_ASSUMED\"} 1"));

  // A model the client named is the client's choice of hardware: no warning.
  absl::StatusOr<PlanningResult> named = PlanIt(SmallTask(6, 4), "", "sim-rtx2080ti@5");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_TRUE(named->warnings.empty());
  // EvaluatePlan chooses and warns alike.
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(SmallTask(6, 4), result->plan, "");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->warnings, result->warnings);
}

TEST_F(PlanningEngineDefaultsTest, AnUnknownHardwareIsRefusedListingTheKnownOnes) {
  AddNeural("cpu-amd-epyc", "2", "2026-01-01T00:00:00Z", "cpu-amd-epyc");
  Task task = SmallTask(6, 1);
  task.topology.hardware = "tpu-v5";
  const absl::Status status = PlanIt(task).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "task.topology.hardware: unknown hardware \"tpu-v5\"; known: a100-sxm4, a100-sxm4-roce, "
            "cpu-amd-epyc, h100-sxm, rtx2080ti (the simulator's profiles and the loaded models' "
            "hardware)");
  // A bundle's own hardware name is known: its model serves it.
  task.topology.hardware = "cpu-amd-epyc";
  absl::StatusOr<PlanningResult> cpu = PlanIt(task, "size_greedy");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->plan.cost_model, "cpu-amd-epyc@2");
  task.topology.hardware = "tpu-v5";
  EXPECT_THAT(std::string(engine_->Evaluate(task, cpu->plan, "").status().message()),
              StartsWith("task.topology.hardware: unknown hardware \"tpu-v5\""));
}

TEST_F(PlanningEngineDefaultsTest, TheDefaultRequestPlansATableLargerThanEveryDevice) {
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  absl::StatusOr<PlanningResult> result = PlanIt(HugeTableTask());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(ShardingOf(result->plan, "huge").sharding_type,
              AnyOf(ShardingType::kRowWise, ShardingType::kTableRowWise));
  // The neural model costs the column level only: analytic@1 costs the row shards, and says why.
  EXPECT_EQ(result->plan.cost_model, "analytic@1");
  EXPECT_THAT(result->selection,
              HasSubstr("model: analytic@1, as no loaded model that covers 8 devices can cost "
                        "the task (sim-h100-sxm@5: task is infeasible for "));
  EXPECT_THAT(result->selection, HasSubstr("cost model sim-h100-sxm@5 cannot cost ROW_WISE or "
                                           "TABLE_ROW_WISE shards) (no model named)"));
  if (result->plan.algorithm != "neuroshard") {  // until NeuroShard places row shards
    EXPECT_THAT(result->selection,
                StartsWith(absl::StrCat("algorithm: ", result->plan.algorithm,
                                        ", as the server's default neuroshard cannot plan the "
                                        "task (task is infeasible for neuroshard: table \"huge\" "
                                        "needs 30.00 GiB but the largest device (device 0) "
                                        "holds 16.00 GiB, only ROW_WISE or TABLE_ROW_WISE")));
  }
}

TEST_F(PlanningEngineDefaultsTest, AWholeTableDefaultFallsBackToAnAlgorithmThatHoldsTheTable) {
  UseDefaultAlgorithm("size_lookup_greedy");
  absl::StatusOr<PlanningResult> result = PlanIt(HugeTableTask());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE(result->plan.algorithm, "size_lookup_greedy");
  EXPECT_THAT(ShardingOf(result->plan, "huge").sharding_type,
              AnyOf(ShardingType::kRowWise, ShardingType::kTableRowWise));
  EXPECT_THAT(
      result->selection,
      StartsWith(absl::StrCat(
          "algorithm: ", result->plan.algorithm,
          ", as the server's default size_lookup_greedy cannot plan the task (task is infeasible "
          "for size_lookup_greedy: table \"huge\" needs 30.00 GiB but the largest device (device "
          "0) holds 16.00 GiB, only ROW_WISE or TABLE_ROW_WISE shards would hold it, and "
          "size_lookup_greedy does not place ROW_WISE or TABLE_ROW_WISE shards (it places "
          "TABLE_WISE)) (no algorithm named)")));
}

TEST_F(PlanningEngineDefaultsTest, ANeuralModelThatCostsRowShardsIsPreferredToAnalytic) {
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  AddNeural("sim-h100-sxm", "6", "2026-03-01T00:00:00Z", "sim-h100-sxm",
            /*costs_every_type=*/true);
  AddNeural("sim-h100-sxm-columns", "1", "2026-04-01T00:00:00Z", "sim-h100-sxm");  // newer
  Task task = HugeTableTask();
  task.topology.hardware = "h100-sxm";
  absl::StatusOr<PlanningResult> result = PlanIt(task, "torchrec");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "sim-h100-sxm@6");
  EXPECT_THAT(ShardingOf(result->plan, "huge").sharding_type,
              AnyOf(ShardingType::kRowWise, ShardingType::kTableRowWise));
  EXPECT_THAT(result->selection, HasSubstr("model: sim-h100-sxm@6, the newest loaded model "
                                           "that covers 8 devices of h100-sxm"));
}

TEST_F(PlanningEngineDefaultsTest, TorchRecWithoutAModelGetsOneThatCostsEveryTypeItPlaces) {
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  absl::StatusOr<PlanningResult> result = PlanIt(SmallTask(6, 4), "torchrec");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "analytic@1");
  EXPECT_THAT(result->selection,
              HasSubstr("(sim-h100-sxm@5: cannot cost ROW_WISE, TABLE_ROW_WISE, DATA_PARALLEL, "
                        "which torchrec would place"));
  // A table that allows only the column level loses nothing under the neural model.
  Task columns = SmallTask(6, 4);
  for (Table& table : columns.tables) {
    table.allowed_sharding_types = {ShardingType::kTableWise, ShardingType::kColumnWise};
  }
  absl::StatusOr<PlanningResult> column_level = PlanIt(columns, "torchrec");
  ASSERT_TRUE(column_level.ok()) << column_level.status();
  EXPECT_EQ(column_level->plan.cost_model, "sim-h100-sxm@5");
}

TEST_F(PlanningEngineDefaultsTest, ANamedAlgorithmThatCannotHoldTheTableIsRefusedNamingWhatWould) {
  const absl::Status status = PlanIt(HugeTableTask(), "size_greedy").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("task is infeasible for size_greedy: table \"huge\" needs 30.00 GiB but "
                         "the largest device (device 0) holds 16.00 GiB; only ROW_WISE or "
                         "TABLE_ROW_WISE shards would hold it, and size_greedy does not place "
                         "ROW_WISE or TABLE_ROW_WISE shards (it places TABLE_WISE); these would "
                         "plan it: "));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("--algorithm torchrec (ROW_WISE, TABLE_ROW_WISE) under --model "
                        "analytic@1"));
}

TEST_F(PlanningEngineDefaultsTest, ANamedModelThatCannotCostTheRowShardsIsRefusedNamingIt) {
  AddNeural("sim-h100-sxm", "5", "2026-02-01T00:00:00Z", "sim-h100-sxm");
  const absl::Status status = PlanIt(HugeTableTask(), "torchrec", "sim-h100-sxm@5").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("only ROW_WISE or TABLE_ROW_WISE shards would hold it, and cost model "
                        "sim-h100-sxm@5 cannot cost ROW_WISE or TABLE_ROW_WISE shards; these "
                        "would plan it: "));
  // The stand-in costs the column level only, so it is not among them.
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("--algorithm torchrec (ROW_WISE, TABLE_ROW_WISE) under "
                        "--model analytic@1"));
  EXPECT_THAT(std::string(status.message()), ::testing::Not(HasSubstr("or sim-h100-sxm@5")));
}

TEST_F(PlanningEngineDefaultsTest, ATableThatExcludesEveryHolderIsRefusedSayingSo) {
  Task task = HugeTableTask();
  task.tables.back().allowed_sharding_types = {ShardingType::kTableWise};
  const absl::Status status = PlanIt(task).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("only ROW_WISE or TABLE_ROW_WISE shards would hold it, and "
                        "tables[3].allowed_sharding_types excludes ROW_WISE, TABLE_ROW_WISE (it "
                        "allows TABLE_WISE); no loaded algorithm and model would plan it"));
}

}  // namespace
}  // namespace shardplan
