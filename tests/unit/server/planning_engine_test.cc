#include "server/planning_engine.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "costmodels/analytic_cost_model.h"
#include "planner/validation.h"
#include "server/metrics.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

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
  EXPECT_EQ(plan.request_hash.size(), 64u);
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
  EXPECT_EQ(second->plan.request_hash, first->plan.request_hash);
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
  EXPECT_EQ(cached->plan.request_hash, computed->plan.request_hash);
  absl::StatusOr<PlanningResult> again = engine_->Compute(*prepared, stop, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->cache_hit);  // planned anew, though the cache holds the plan

  prepared->bypass_cache = true;
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
  absl::Status status = PlanIt(Request(task)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("huge"));
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
  absl::StatusOr<Plan> evaluated = engine_->Evaluate(task, shards_only, "");
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_DOUBLE_EQ(evaluated->cost_ms, planned->plan.cost_ms);
  EXPECT_EQ(evaluated->devices.size(), 2u);
  EXPECT_EQ(evaluated->cost_model, "analytic@1");
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

}  // namespace
}  // namespace shardplan
