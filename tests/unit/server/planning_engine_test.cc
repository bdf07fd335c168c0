#include "server/planning_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "costmodels/analytic/analytic_cost_model.h"
#include "gmock/gmock.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"
#include "planner/estimators/typical_access.h"
#include "prometheus/text_serializer.h"
#include "server/metrics.h"
#include "tests/unit/server/histogram_reading_model.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::HistogramReadingModel;
using server_test::kGiB;
using server_test::SmallTask;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class PlanningEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinModels(models_).ok());
    Rebuild(int64_t{1} << 20, TaskLimits{});
  }

  void Rebuild(int64_t cache_bytes, TaskLimits limits) {
    cache_ = std::make_unique<PlanCache>(cache_bytes);
    engine_ = std::make_unique<PlanningEngine>(
        &algorithms_, &models_, cache_.get(), &metrics_,
        PlanningEngineOptions{.default_algorithm = "size_lookup_greedy", .limits = limits});
  }

  // Adds a HistogramReadingModel as name@version, created at `created`. No device counts: any,
  // with `costs_interconnect` false a model of compute-only data (cpu), with true one with
  // device-set comm models.
  std::shared_ptr<const HistogramReadingModel> AddNeural(const std::string& name,
                                                         const std::string& version,
                                                         const std::string& created,
                                                         std::vector<int32_t> device_counts,
                                                         bool costs_interconnect = true) {
    ModelManifest manifest;
    manifest.name = name;
    manifest.version = version;
    manifest.kind = "neural";
    manifest.created = created;
    manifest.device_counts = device_counts;
    manifest.costs_interconnect = costs_interconnect;
    auto model =
        std::make_shared<const HistogramReadingModel>(manifest.id(), std::move(device_counts));
    EXPECT_TRUE(models_.Add(manifest, model).ok());
    return model;
  }

  // "r@1": a HistogramReadingModel for 2 devices trained on tables of at most 3000 rows.
  void AddModelTrainedUpTo3000Rows() {
    ASSERT_TRUE(
        server_test::AddHistogramReadingModel(models_, "r", "1", {2}, /*max_rows=*/3000).ok());
  }

  PlanningRequest Request(Task task, std::string algorithm = "") {
    PlanningRequest request;
    request.task = std::move(task);
    request.algorithm = std::move(algorithm);
    return request;
  }

  absl::StatusOr<PlanningResult> PlanIt(PlanningRequest request) {
    absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(std::move(request));
    if (!prepared.ok()) return prepared.status();
    const StopSignal stop;
    return engine_->Run(*prepared, stop, nullptr);
  }

  AlgorithmRegistry algorithms_ = BuiltinAlgorithms();
  ModelRegistry models_;
  ServerMetrics metrics_;
  std::unique_ptr<PlanCache> cache_;
  std::unique_ptr<PlanningEngine> engine_;
};

TEST_F(PlanningEngineTest, RecordsTheResolvedVersionNotTheSpec) {
  ModelManifest manifest;
  manifest.name = "analytic";
  manifest.version = "7";
  manifest.kind = "analytic";
  ASSERT_TRUE(
      models_.Add(manifest, std::make_shared<const AnalyticCostModel>(AnalyticParams{}, "7")).ok());
  const Task task = SmallTask();
  for (const std::string spec : {"", "analytic", "analytic@7"}) {
    PlanningRequest request = Request(task);
    request.model = spec;
    absl::StatusOr<PlanningResult> result = PlanIt(std::move(request));
    ASSERT_TRUE(result.ok()) << spec << ": " << result.status();
    EXPECT_EQ(result->plan.cost_model, "analytic@7") << spec;
  }
  PlanningRequest old = Request(task);
  old.model = "analytic@1";
  absl::StatusOr<PlanningResult> result = PlanIt(std::move(old));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "analytic@1");
}

TEST_F(PlanningEngineTest, PlansWithTheDefaultsAndRecordsTheRequest) {
  const Task task = SmallTask();
  absl::StatusOr<PlanningResult> result = PlanIt(Request(task));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->cache_hit);
  const Plan& plan = result->plan;
  EXPECT_TRUE(ValidatePlan(CanonicalTask(task), plan).ok());
  EXPECT_EQ(plan.algorithm, "size_lookup_greedy");
  EXPECT_EQ(plan.cost_model, "analytic@1");
  EXPECT_EQ(result->request_hash.size(), 64u);
  EXPECT_GT(plan.cost_ms, 0);
  EXPECT_EQ(cache_->entries(), 1);
}

TEST_F(PlanningEngineTest, AReorderedTaskHitsTheCacheWithTheSamePlan) {
  Task task = SmallTask(8, 3);
  absl::StatusOr<PlanningResult> first = PlanIt(Request(task));
  ASSERT_TRUE(first.ok()) << first.status();
  std::reverse(task.tables.begin(), task.tables.end());
  absl::StatusOr<PlanningResult> second = PlanIt(Request(task));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->request_hash, first->request_hash);
  EXPECT_EQ(second->plan.cost_ms, first->plan.cost_ms);
  ASSERT_EQ(second->plan.tables.size(), first->plan.tables.size());
  for (size_t i = 0; i < first->plan.tables.size(); ++i) {
    EXPECT_EQ(second->plan.tables[i].table, first->plan.tables[i].table);
    EXPECT_EQ(second->plan.tables[i].shards[0].device, first->plan.tables[i].shards[0].device);
  }
}

TEST_F(PlanningEngineTest, InputOrderDoesNotChangeThePlanWithoutACache) {
  Rebuild(0, TaskLimits{});
  Task task = SmallTask(8, 3);
  absl::StatusOr<PlanningResult> first = PlanIt(Request(task, "size_greedy"));
  std::reverse(task.tables.begin(), task.tables.end());
  absl::StatusOr<PlanningResult> second = PlanIt(Request(task, "size_greedy"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE(second->cache_hit);
  EXPECT_EQ(second->plan.cost_ms, first->plan.cost_ms);
  EXPECT_EQ(second->plan.tables[0].table, first->plan.tables[0].table);
}

TEST_F(PlanningEngineTest, BypassPlansAgainAndRefreshes) {
  ASSERT_TRUE(PlanIt(Request(SmallTask())).ok());
  PlanningRequest bypass = Request(SmallTask());
  bypass.bypass_cache = true;
  absl::StatusOr<PlanningResult> again = PlanIt(std::move(bypass));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->cache_hit);
  EXPECT_EQ(cache_->entries(), 1);
  EXPECT_TRUE(PlanIt(Request(SmallTask()))->cache_hit);
}

TEST_F(PlanningEngineTest, CachedResultOnlyLooksAndComputeAlwaysPlans) {
  absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(Request(SmallTask()));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_FALSE(engine_->CachedResult(*prepared).has_value());
  const StopSignal stop;
  absl::StatusOr<PlanningResult> computed = engine_->Compute(*prepared, stop, nullptr);
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_FALSE(computed->cache_hit);

  std::optional<PlanningResult> cached = engine_->CachedResult(*prepared);
  ASSERT_TRUE(cached.has_value());
  EXPECT_TRUE(cached->cache_hit);
  EXPECT_EQ(cached->request_hash, computed->request_hash);
  absl::StatusOr<PlanningResult> again = engine_->Compute(*prepared, stop, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->cache_hit);  // planned anew, though the cache holds the plan

  prepared->asked.bypass_cache = true;
  EXPECT_FALSE(engine_->CachedResult(*prepared).has_value());
}

TEST_F(PlanningEngineTest, ParameterSpellingIsCanonicalButValuesMatter) {
  PlanningRequest a = Request(SmallTask(4, 2), "exhaustive");
  a.params = {{"max_placements", "100"}};
  PlanningRequest b = Request(SmallTask(4, 2), "exhaustive");
  b.params = {{"max_placements", "0100"}};
  PlanningRequest c = Request(SmallTask(4, 2), "exhaustive");
  c.params = {{"max_placements", "101"}};
  PlanningRequest d = Request(SmallTask(4, 2), "exhaustive");  // default 1000000
  absl::StatusOr<PreparedRequest> pa = engine_->Prepare(a);
  absl::StatusOr<PreparedRequest> pb = engine_->Prepare(b);
  absl::StatusOr<PreparedRequest> pc = engine_->Prepare(c);
  absl::StatusOr<PreparedRequest> pd = engine_->Prepare(d);
  ASSERT_TRUE(pa.ok() && pb.ok() && pc.ok() && pd.ok()) << pb.status();
  EXPECT_EQ(pa->cache_key, pb->cache_key);
  EXPECT_NE(pa->cache_key, pc->cache_key);
  EXPECT_NE(pa->cache_key, pd->cache_key);
}

TEST_F(PlanningEngineTest, SeedAlgorithmAndModelChangeTheKey) {
  PlanningRequest base = Request(SmallTask());
  PlanningRequest seed = Request(SmallTask());
  seed.seed = 5;
  PlanningRequest algorithm = Request(SmallTask(), "size_greedy");
  PlanningRequest named_model = Request(SmallTask());
  named_model.model = "analytic@1";  // the same model, spelt exactly
  const std::string key = engine_->Prepare(base)->cache_key;
  EXPECT_NE(engine_->Prepare(seed)->cache_key, key);
  EXPECT_NE(engine_->Prepare(algorithm)->cache_key, key);
  EXPECT_EQ(engine_->Prepare(named_model)->cache_key, key);
}

TEST_F(PlanningEngineTest, UnknownAlgorithmListsTheKnownOnes) {
  absl::Status status = PlanIt(Request(SmallTask(), "x")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("algorithm: unknown algorithm \"x\"; known: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("size_lookup_greedy"));
}

TEST_F(PlanningEngineTest, BadParametersNameTheParameter) {
  PlanningRequest request = Request(SmallTask(), "exhaustive");
  request.params = {{"max_placements", "lots"}};
  absl::Status status = PlanIt(request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("parameters.max_placements"));
}

TEST_F(PlanningEngineTest, UnknownModelIsNotFound) {
  PlanningRequest request = Request(SmallTask());
  request.model = "neural";
  absl::Status status = PlanIt(request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), StartsWith("model: "));
  request.model = "analytic@9";
  EXPECT_EQ(PlanIt(request).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(PlanningEngineTest, InvalidTasksNameTheField) {
  Task task = SmallTask();
  task.tables[1].dim = 6;
  absl::Status status = PlanIt(Request(task)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("task.tables[1].dim"));
}

TEST_F(PlanningEngineTest, LimitsAreResourceExhausted) {
  TaskLimits limits;
  limits.max_tables = 3;
  Rebuild(1 << 20, limits);
  absl::Status status = PlanIt(Request(SmallTask(4, 2))).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()), StartsWith("task."));
}

TEST_F(PlanningEngineTest, InfeasibleTasksNameTheTable) {
  Task task = SmallTask(3, 2);
  task.tables[2].name = "huge";
  task.tables[2].rows = 20 * kGiB / (4 * task.tables[2].dim);  // 20 GiB on 16 GiB devices
  // A named whole-table planner cannot hold it (the default request falls back to one that can:
  // planning_engine_defaults_test.cc).
  absl::Status status = PlanIt(Request(task, "size_lookup_greedy")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("huge"));
  // 40 GiB outgrows both devices together: no sharding holds it, whatever the algorithm.
  task.tables[2].rows *= 2;
  status = PlanIt(Request(task)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("the largest table \"huge\" needs 40.00"));
  EXPECT_EQ(cache_->entries(), 0);
}

TEST_F(PlanningEngineTest, StopSignalsStopPlanning) {
  absl::StatusOr<PreparedRequest> prepared =
      engine_->Prepare(Request(SmallTask(10, 4), "exhaustive"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const StopSignal expired(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(engine_->Run(*prepared, expired, nullptr).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  StopSignal cancelled;
  cancelled.RequestCancel();
  EXPECT_EQ(engine_->Run(*prepared, cancelled, nullptr).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(cache_->entries(), 0);
}

TEST_F(PlanningEngineTest, EvaluateRecomputesTheFigures) {
  const Task task = SmallTask();
  absl::StatusOr<PlanningResult> planned = PlanIt(Request(task));
  ASSERT_TRUE(planned.ok());
  Plan shards_only;
  shards_only.tables = planned->plan.tables;
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, shards_only, "");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_DOUBLE_EQ(evaluated->plan.cost_ms, planned->plan.cost_ms);
  EXPECT_EQ(evaluated->plan.devices.size(), 2u);
  EXPECT_EQ(evaluated->plan.cost_model, "analytic@1");
}

TEST_F(PlanningEngineTest, EvaluateRejectsBadPlans) {
  const Task task = SmallTask(2, 2);
  Plan unknown;
  unknown.tables.push_back({"nope", ShardingType::kTableWise, {Shard{0, 0, 1000, 0, 8}}});
  absl::Status status = engine_->Evaluate(task, unknown, "").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("plan.tables[0]"));

  Task small = SmallTask(2, 2);
  small.topology.memory_bytes = {1024, 1024};  // nothing fits
  Plan full;
  full.tables.push_back({"t0", ShardingType::kTableWise, {Shard{0, 0, 1000, 0, 8}}});
  full.tables.push_back({"t1", ShardingType::kTableWise, {Shard{1, 0, 2000, 0, 16}}});
  status = engine_->Evaluate(small, full, "").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), StartsWith("plan: device"));

  EXPECT_EQ(engine_->Evaluate(task, full, "nope").status().code(), absl::StatusCode::kNotFound);
}

// The hybrid (t0's hottest rows on every device, the rest row-wise) passes the server's
// validation, is costed by a model that costs routed layouts (analytic@1), and refused, by
// table, by one that does not (a learned model never trained on replicated row groups).
TEST_F(PlanningEngineTest, EvaluateCostsReplicatedRowGroupsOnlyUnderModelsThatCostThem) {
  const Task task = SmallTask(2, 2);
  Plan hybrid;
  TableSharding t0{.table = "t0", .sharding_type = ShardingType::kRowWise, .shards = {}};
  t0.row_order = RowOrder::kFrequencyRank;
  t0.shards = {Shard{0, 0, 10, 0, 8}, Shard{1, 0, 10, 0, 8}, Shard{0, 10, 500, 0, 8},
               Shard{1, 510, 490, 0, 8}};
  hybrid.tables.push_back(t0);
  hybrid.tables.push_back({"t1", ShardingType::kTableWise, {Shard{1, 0, 2000, 0, 16}}});
  const absl::StatusOr<PlanningResult> costed = engine_->Evaluate(task, hybrid, "analytic@1");
  ASSERT_TRUE(costed.ok()) << costed.status();
  EXPECT_EQ(costed->plan.cost_model, "analytic@1");
  EXPECT_GT(costed->plan.cost_ms, 0.0);

  AddNeural("learned", "1", "2026-01-01T00:00:00Z", {2});
  const absl::Status status = engine_->Evaluate(task, hybrid, "learned@1").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("table \"t0\""));
}

// flexshard's plans are routed layouts: with no model named, the server passes over the newest
// learned model (which cannot cost them) for one that can, and says why.
TEST_F(PlanningEngineTest, ARowLayoutPlannerGetsAModelThatCostsRowLayouts) {
  ModelManifest manifest;
  manifest.name = "learned";
  manifest.version = "1";
  manifest.kind = "neural";
  manifest.created = "2026-01-01T00:00:00Z";
  manifest.device_counts = {4};
  manifest.costs_interconnect = true;
  ASSERT_TRUE(models_
                  .Add(manifest, std::make_shared<const HistogramReadingModel>(
                                     "learned@1", std::vector<int32_t>{4},
                                     std::numeric_limits<int64_t>::max(), /*every_type=*/true))
                  .ok());
  Task task = SmallTask(3, 4);
  task.topology.devices_per_host = 2;
  for (Table& table : task.tables) table.access_profile.zipf = ZipfAccessProfile{.exponent = 1.2};
  absl::StatusOr<PlanningResult> result = PlanIt(Request(task, "flexshard"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "analytic@1");
  EXPECT_THAT(result->selection,
              HasSubstr("learned@1: cannot cost routed row layouts, which flexshard plans"));
  // A plain request still gets the learned model.
  result = PlanIt(Request(task, "size_greedy"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "learned@1");
}

TEST_F(PlanningEngineTest, NoModelNamedMeansTheNewestLoadedModelThatCoversTheTask) {
  AddNeural("a", "1", "2026-01-01T00:00:00Z", {2});
  AddNeural("b", "1", "2026-02-01T00:00:00Z", {4});
  // No interconnect: single devices only.
  AddNeural("cpu", "1", "2026-03-01T00:00:00Z", {}, /*costs_interconnect=*/false);
  const auto model_of = [&](const Task& task) {
    absl::StatusOr<PlanningResult> result = PlanIt(Request(task));
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? std::make_pair(result->plan.cost_model, result->selection)
                       : std::make_pair(std::string(), std::string());
  };
  EXPECT_EQ(model_of(SmallTask(6, 2)).first, "a@1");
  EXPECT_THAT(model_of(SmallTask(6, 2)).second,
              HasSubstr("model: a@1, the newest loaded model that covers 2 devices"));
  EXPECT_EQ(model_of(SmallTask(6, 4)).first, "b@1");
  EXPECT_EQ(model_of(SmallTask(6, 1)).first, "cpu@1");
  const auto [fallback, reason] = model_of(SmallTask(6, 3));
  EXPECT_EQ(fallback, "analytic@1");
  EXPECT_THAT(reason, HasSubstr("model: analytic@1, as no loaded model covers 3 devices"));

  // A model that covers the devices but cannot cost a type the tables allow is passed over, and
  // the selection says why (not that no model covers the devices).
  Task rows_only = SmallTask(6, 4);
  rows_only.tables[0].allowed_sharding_types = {ShardingType::kRowWise};
  absl::StatusOr<PlanningResult> rows = PlanIt(Request(rows_only, "torchrec"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->plan.cost_model, "analytic@1");
  EXPECT_EQ(rows->plan.tables[0].sharding_type, ShardingType::kRowWise);
  EXPECT_THAT(rows->selection,
              HasSubstr("model: analytic@1, as no loaded model that covers 4 devices "
                        "can cost the task (b@1: tables[0].allowed_sharding_types"));

  AddNeural("a", "2", "2026-04-01T00:00:00Z", {2});  // a newer version covers 2 devices
  EXPECT_EQ(model_of(SmallTask(6, 2)).first, "a@2");
  // One device: only a model without comm models (cpu data) can cost it.
  EXPECT_EQ(model_of(SmallTask(6, 1)).first, "cpu@1");
  // Device-set comm models cover every count: the newest such bundle wins wherever it is newer.
  AddNeural("any", "1", "2026-05-01T00:00:00Z", {});
  EXPECT_EQ(model_of(SmallTask(6, 3)).first, "any@1");
  EXPECT_EQ(model_of(SmallTask(6, 2)).first, "any@1");
  EXPECT_EQ(model_of(SmallTask(6, 1)).first, "any@1");

  // A request that names its model gets it, and no selection note about the model.
  PlanningRequest named = Request(SmallTask(6, 2), "size_lookup_greedy");
  named.model = "b@1";
  EXPECT_EQ(PlanIt(std::move(named)).status().code(), absl::StatusCode::kFailedPrecondition);
  PlanningRequest explicit_both = Request(SmallTask(6, 2), "size_lookup_greedy");
  explicit_both.model = "a@1";
  absl::StatusOr<PlanningResult> result = PlanIt(std::move(explicit_both));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "a@1");
  EXPECT_EQ(result->selection, "");
}

TEST_F(PlanningEngineTest, TheSelectionIsTheRequestsOwnEvenFromTheCache) {
  AddNeural("a", "1", "2026-01-01T00:00:00Z", {2});
  PlanningRequest named = Request(SmallTask(6, 2), "size_lookup_greedy");
  named.model = "a@1";
  ASSERT_TRUE(PlanIt(std::move(named)).ok());
  absl::StatusOr<PlanningResult> defaulted = PlanIt(Request(SmallTask(6, 2)));
  ASSERT_TRUE(defaulted.ok()) << defaulted.status();
  EXPECT_TRUE(defaulted->cache_hit);  // the same resolved request
  EXPECT_EQ(defaulted->selection,
            "algorithm: size_lookup_greedy, the server's default (no algorithm named); model: "
            "a@1, the newest loaded model that covers 2 devices (no model named)");
}

TEST_F(PlanningEngineTest, AConfiguredDefaultModelServesEveryRequestThatNamesNone) {
  AddNeural("a", "1", "2026-01-01T00:00:00Z", {2});
  engine_ = std::make_unique<PlanningEngine>(
      &algorithms_, &models_, cache_.get(), &metrics_,
      PlanningEngineOptions{.default_algorithm = "neuroshard", .default_model = "analytic"});
  absl::StatusOr<PlanningResult> result = PlanIt(Request(SmallTask(6, 2)));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.algorithm, "neuroshard");
  EXPECT_EQ(result->plan.cost_model, "analytic@1");
  EXPECT_EQ(result->selection,
            "algorithm: neuroshard, the server's default (no algorithm named); model: analytic@1, "
            "the server's default_model (no model named)");
}

TEST_F(PlanningEngineTest, TablesWithoutHistogramsAreImputedWithAWarningWhereTheModelReadsThem) {
  const auto model = AddNeural("a", "1", "2026-01-01T00:00:00Z", {2});
  Task task = SmallTask(4, 2);
  for (Table& table : task.tables) table.access_bins = TypicalAccessBins(table.rows, 3.0);
  task.tables[2].access_bins.clear();                    // "t2"
  std::reverse(task.tables.begin(), task.tables.end());  // request order: t3 t2 t1 t0
  absl::StatusOr<PlanningResult> result = PlanIt(Request(task, "size_lookup_greedy"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->plan.cost_model, "a@1");
  EXPECT_FALSE(model->saw_table_without_bins());
  ASSERT_EQ(result->warnings.size(), 1u);
  const PlanWarning& warning = result->warnings[0];
  EXPECT_EQ(warning.code, kImputedAccessHistogram);
  EXPECT_EQ(warning.field, "task.tables[1].access_bins");  // t2's place in the request
  EXPECT_THAT(warning.message, HasSubstr("table \"t2\" has no access histogram"));
  EXPECT_THAT(prometheus::TextSerializer().Serialize(metrics_.registry()->Collect()),
              HasSubstr("shardplan_plan_warnings_total{code=\"IMPUTED_ACCESS_HISTOGRAM\"} 1"));

  // The analytic model does not read histograms: nothing to impute, nothing to warn about.
  PlanningRequest analytic = Request(task, "size_lookup_greedy");
  analytic.model = "analytic";
  absl::StatusOr<PlanningResult> plain = PlanIt(std::move(analytic));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(plain->warnings.empty());

  // EvaluatePlan imputes and warns the same way.
  Plan shards;
  shards.tables = result->plan.tables;
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, shards, "a@1");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->warnings, result->warnings);
  EXPECT_DOUBLE_EQ(evaluated->plan.cost_ms, result->plan.cost_ms);
}

TEST_F(PlanningEngineTest, PlansOverTorchRecsReservationAreWarnedAbout) {
  Task task = SmallTask(4, 2);  // t3 alone is 512,000 bytes, 85.3% of a 600,000-byte device
  task.topology.memory_bytes.assign(2, 600000);
  absl::StatusOr<PlanningResult> result = PlanIt(Request(task, "size_greedy"));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->warnings.size(), 1u);
  const PlanWarning& warning = result->warnings[0];
  EXPECT_EQ(warning.code, kTorchRecMemory);
  EXPECT_EQ(warning.field, "task.memory.storage_reservation");
  EXPECT_THAT(warning.message, HasSubstr("TorchRec holds back 15% of each device"));
  EXPECT_THAT(prometheus::TextSerializer().Serialize(metrics_.registry()->Collect()),
              HasSubstr("shardplan_plan_warnings_total{code=\"TORCHREC_MEMORY\"} 1"));
  // A cached answer carries it too, and so does EvaluatePlan.
  absl::StatusOr<PlanningResult> again = PlanIt(Request(task, "size_greedy"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->warnings, result->warnings);
  Plan shards;
  shards.tables = result->plan.tables;
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, shards, "analytic");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->warnings, result->warnings);

  // Under TorchRec's accounting the task does not fit: t3 needs more than 85% of a device.
  Task reserved = task;
  reserved.memory.storage_reservation = kTorchRecStorageReservation;
  ReserveStorage(reserved.memory.storage_reservation, reserved.topology);
  EXPECT_EQ(reserved.topology.memory_bytes[0], 510000);
  absl::StatusOr<PlanningResult> refused = PlanIt(Request(reserved, "size_greedy"));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();

  // Devices with room under the reservation: the plan comes back without the warning.
  reserved.topology = task.topology;
  reserved.topology.memory_bytes.assign(2, 700000);
  ReserveStorage(reserved.memory.storage_reservation, reserved.topology);
  absl::StatusOr<PlanningResult> fits = PlanIt(Request(reserved, "size_greedy"));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_TRUE(fits->warnings.empty());
  EXPECT_EQ(fits->plan.devices[0].memory_capacity_bytes, 595000);
}

TEST_F(PlanningEngineTest, TablesOutsideTheTrainingDataAreWarnedAbout) {
  AddModelTrainedUpTo3000Rows();
  Task task = SmallTask(4, 2);  // t0..t3 of 1000..4000 rows
  for (Table& table : task.tables) table.access_bins = TypicalAccessBins(table.rows, 3.0);
  std::reverse(task.tables.begin(), task.tables.end());  // request order: t3 t2 t1 t0
  PlanningRequest request = Request(task, "size_lookup_greedy");
  request.model = "r@1";
  absl::StatusOr<PlanningResult> result = PlanIt(std::move(request));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->warnings.size(), 1u);  // the plan still comes back, with the warning
  const PlanWarning& warning = result->warnings[0];
  EXPECT_EQ(warning.code, kOutsideTrainingRange);
  EXPECT_EQ(warning.field, "task.tables[0]");  // t3's place in the request
  EXPECT_THAT(warning.message,
              HasSubstr("table \"t3\" lies outside the data cost model r@1 was trained on (row "
                        "4000 (trained on 1 to 3000)): its cost is an extrapolation"));
  EXPECT_THAT(prometheus::TextSerializer().Serialize(metrics_.registry()->Collect()),
              HasSubstr("shardplan_plan_warnings_total{code=\"OUTSIDE_TRAINING_RANGE\"} 1"));

  // EvaluatePlan warns the same way; a model without a range never does.
  Plan shards;
  shards.tables = result->plan.tables;
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, shards, "r@1");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->warnings, result->warnings);
  evaluated = engine_->Evaluate(task, shards, "analytic@1");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_TRUE(evaluated->warnings.empty());
}

// The metric's value in the text exposition ("name value" or "name{labels} value"), 0 when absent.
double MetricValue(const ServerMetrics& metrics, const std::string& series) {
  const std::string text = prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return 0.0;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST_F(PlanningEngineTest, ACacheHitImputesNoHistogramYetGivesTheImputedTablesWarnings) {
  AddModelTrainedUpTo3000Rows();
  Task task = SmallTask(4, 2);  // t0..t3 of 1000..4000 rows, none with a histogram
  PlanningRequest request = Request(task, "size_lookup_greedy");
  request.model = "r@1";
  absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(request);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  for (const Table& table : prepared->task.tables) EXPECT_TRUE(table.access_bins.empty());
  EXPECT_EQ(MetricValue(metrics_, "shardplan_imputed_histograms_total"), 0.0);

  absl::StatusOr<PlanningResult> computed = PlanIt(request);
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_FALSE(computed->cache_hit);
  EXPECT_EQ(MetricValue(metrics_, "shardplan_imputed_histograms_total"), 4.0);
  // Four imputed histograms, and t3 (4000 rows) outside the model's range once imputed.
  ASSERT_EQ(computed->warnings.size(), 5u);
  EXPECT_EQ(computed->warnings[4].code, kOutsideTrainingRange);
  EXPECT_EQ(computed->warnings[4].field, "task.tables[3]");

  // The same request in another table order: a cache hit that imputes nothing, with the
  // warnings at its own positions.
  std::reverse(request.task.tables.begin(), request.task.tables.end());
  absl::StatusOr<PlanningResult> hit = PlanIt(request);
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(MetricValue(metrics_, "shardplan_imputed_histograms_total"), 4.0);
  ASSERT_EQ(hit->warnings.size(), 5u);
  EXPECT_EQ(hit->warnings[0].field, "task.tables[0].access_bins");
  EXPECT_THAT(hit->warnings[0].message, HasSubstr("table \"t3\" has no access histogram"));
  EXPECT_EQ(hit->warnings[4].field, "task.tables[0]");
  EXPECT_EQ(hit->warnings[4].message, computed->warnings[4].message);

  // EvaluatePlan gives the warnings of the Plan call, in its order.
  Plan shards;
  shards.tables = computed->plan.tables;
  absl::StatusOr<PlanningResult> evaluated = engine_->Evaluate(task, shards, "r@1");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->warnings, computed->warnings);
}

TEST_F(PlanningEngineTest, GroundTruthScoresThePlanOnTheSimulator) {
  Task task = SmallTask(6, 4);
  for (Table& table : task.tables) table.access_bins = TypicalAccessBins(table.rows, 2.0);
  absl::StatusOr<PlanningResult> planned = PlanIt(Request(task, "size_lookup_greedy"));
  ASSERT_TRUE(planned.ok()) << planned.status();
  Plan shards;
  shards.tables = planned->plan.tables;
  absl::StatusOr<PlanningResult> measured =
      engine_->EvaluateOnGroundTruth(task, shards, "sim:rtx2080ti");
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->plan.cost_kind, "ground_truth");
  EXPECT_EQ(measured->plan.cost_model, "sim-rtx2080ti");
  ASSERT_EQ(measured->plan.devices.size(), 4u);
  EXPECT_TRUE(measured->warnings.empty());
  // The same number the benchmarks' scorer gives, and per-device memory as EvaluatePlan's.
  absl::StatusOr<std::unique_ptr<HardwareBackend>> sim = MakeSimBackend("rtx2080ti", 4);
  ASSERT_TRUE(sim.ok());
  absl::StatusOr<HardwarePlanCost> expected = ScorePlanOnHardware(task, shards, **sim);
  ASSERT_TRUE(expected.ok());
  EXPECT_DOUBLE_EQ(measured->plan.cost_ms, expected->cost_ms);
  for (size_t d = 0; d < 4; ++d) {
    EXPECT_EQ(measured->plan.devices[d].memory_bytes, planned->plan.devices[d].memory_bytes);
    EXPECT_DOUBLE_EQ(measured->plan.devices[d].total_ms, expected->total_ms[d]);
  }

  task.tables[0].access_bins.clear();
  absl::StatusOr<PlanningResult> imputed =
      engine_->EvaluateOnGroundTruth(task, shards, "sim:h100-sxm");
  ASSERT_TRUE(imputed.ok()) << imputed.status();
  EXPECT_EQ(imputed->plan.cost_model, "sim-h100-sxm");
  ASSERT_EQ(imputed->warnings.size(), 1u);
  EXPECT_EQ(imputed->warnings[0].field, "task.tables[0].access_bins");

  for (const std::string spec : {"", "sim", "sim:", "gpu:a100", "rtx2080ti"}) {
    absl::Status status = engine_->EvaluateOnGroundTruth(task, shards, spec).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_THAT(std::string(status.message()), StartsWith("ground_truth: ")) << spec;
  }
  absl::Status unknown = engine_->EvaluateOnGroundTruth(task, shards, "sim:v100").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.message()), HasSubstr("rtx2080ti"));
}

TEST_F(PlanningEngineTest, GroundTruthScoresRowWiseAndDataParallelPlansOnTheSimulator) {
  Task task = SmallTask(3, 4);
  task.topology.devices_per_host = 2;
  for (Table& table : task.tables) table.access_bins = TypicalAccessBins(table.rows, 2.0);
  Plan shards = TableWisePlan(task, {0, 0, 0});
  TableSharding& row_wise = shards.tables[0];  // t0: 1000 rows over the 4 devices
  row_wise.sharding_type = ShardingType::kRowWise;
  row_wise.shards.clear();
  for (int32_t d = 0; d < 4; ++d) {
    row_wise.shards.push_back(Shard{.device = d,
                                    .row_offset = 250 * d,
                                    .row_count = 250,
                                    .column_offset = 0,
                                    .column_count = task.tables[0].dim});
  }
  TableSharding& replicated = shards.tables[1];  // t1 on every device
  replicated.sharding_type = ShardingType::kDataParallel;
  replicated.shards.clear();
  for (int32_t d = 0; d < 4; ++d) {
    replicated.shards.push_back(Shard{.device = d,
                                      .row_offset = 0,
                                      .row_count = task.tables[1].rows,
                                      .column_offset = 0,
                                      .column_count = task.tables[1].dim});
  }
  absl::StatusOr<PlanningResult> measured =
      engine_->EvaluateOnGroundTruth(task, shards, "sim:a100-sxm4");
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->plan.cost_kind, "ground_truth");
  EXPECT_EQ(measured->plan.cost_model, "sim-a100-sxm4");
  ASSERT_EQ(measured->plan.devices.size(), 4u);
  for (const DeviceCost& device : measured->plan.devices) {
    EXPECT_GT(device.forward_comm_ms, 0.0) << device.device;   // the reduce-scatter
    EXPECT_GT(device.backward_comm_ms, 0.0) << device.device;  // all-gather, all-reduce
  }
  EXPECT_GT(measured->plan.cost_ms, 0.0);
}

}  // namespace
}  // namespace shardplan
