#include "server/metrics.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "server/build_info.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const ServerMetrics& metrics) {
  return prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
}

TEST(ServerMetricsTest, RecordsEveryFamilyUnderTheShardplanPrefix) {
  ServerMetrics metrics;
  metrics.RecordRpcStart("Plan");
  metrics.RecordRpc("Plan", "OK", 0.01);
  metrics.RecordRpcStart("Plan");
  metrics.RecordRpc("Plan", "INVALID_ARGUMENT", 0.001);
  metrics.RecordPlan("size_greedy", 0.2);
  metrics.RecordSyncPlanStart();
  metrics.RecordSyncPlanStart();
  metrics.RecordSyncPlanEnd();
  metrics.RecordSyncPlanRejected();
  metrics.RecordCacheLookup(true);
  metrics.RecordCacheLookup(false);
  metrics.RecordCacheLookup(false);
  metrics.RecordCacheEvictions(3);
  metrics.SetCacheSize(1234, 5);
  metrics.SetJobLoad(7, 2);
  metrics.RecordJobFinished("CANCELLED");
  metrics.SetModelsLoaded(1);
  metrics.SetJobQueueCapacity(64);

  const std::string text = Text(metrics);
  EXPECT_THAT(text, HasSubstr(R"(shardplan_rpc_requests_total{code="OK",method="Plan"} 1)"));
  EXPECT_THAT(
      text, HasSubstr(R"(shardplan_rpc_requests_total{code="INVALID_ARGUMENT",method="Plan"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_rpc_duration_seconds_count{method="Plan"} 2)"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_rpcs_in_flight{method="Plan"} 0)"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_plans_total{algorithm="size_greedy"} 1)"));
  EXPECT_THAT(text,
              HasSubstr(R"(shardplan_planning_duration_seconds_count{algorithm="size_greedy"} 1)"));
  EXPECT_THAT(text, HasSubstr("shardplan_sync_plans_in_progress 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_sync_plans_rejected_total 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_plan_cache_hits_total 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_plan_cache_misses_total 2"));
  EXPECT_THAT(text, HasSubstr("shardplan_plan_cache_evictions_total 3"));
  EXPECT_THAT(text, HasSubstr("shardplan_plan_cache_bytes 1234"));
  EXPECT_THAT(text, HasSubstr("shardplan_plan_cache_entries 5"));
  EXPECT_THAT(text, HasSubstr("shardplan_job_queue_depth 7"));
  EXPECT_THAT(text, HasSubstr("shardplan_jobs_in_flight 2"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_jobs_finished_total{state="CANCELLED"} 1)"));
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_job_queue_capacity 64"));
}

TEST(ServerMetricsTest, ModelInfoHasASeriesPerModelAndPolicyVersion) {
  ServerMetrics metrics;
  ModelRegistry::Entry model;
  model.manifest.name = "m";
  model.manifest.version = "2";
  model.manifest.kind = "neural";
  model.manifest.hardware_profile = "sim-a";
  model.is_default = true;
  model.is_latest = true;
  PolicyRegistry::Entry policy;
  policy.manifest.name = "p";
  policy.manifest.version = "1";
  policy.manifest.algorithm = "autoshard";
  policy.manifest.hardware_profile = "sim-a";
  metrics.SetModelInfo({model}, {policy});
  metrics.SetPoliciesLoaded(1);
  std::string text = Text(metrics);
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_info{default="true",hardware_profile="sim-a",)"
                              R"(kind="neural",name="m",version="2"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_info{default="false",hardware_profile="sim-a",)"
                              R"(kind="policy",name="p",version="1"} 1)"));
  EXPECT_THAT(text, HasSubstr("shardplan_policies_loaded 1"));
  // A reload that removed the policy replaces the series.
  metrics.SetModelInfo({model}, {});
  metrics.SetPoliciesLoaded(0);
  text = Text(metrics);
  EXPECT_THAT(text, Not(HasSubstr(R"(kind="policy")")));
  EXPECT_THAT(text, HasSubstr("shardplan_policies_loaded 0"));
}

TEST(ServerMetricsTest, InFlightCountsRunningCalls) {
  ServerMetrics metrics;
  metrics.RecordRpcStart("WatchPlan");
  metrics.RecordRpcStart("WatchPlan");
  EXPECT_THAT(Text(metrics), HasSubstr(R"(shardplan_rpcs_in_flight{method="WatchPlan"} 2)"));
  metrics.RecordRpc("WatchPlan", "OK", 1.0);
  EXPECT_THAT(Text(metrics), HasSubstr(R"(shardplan_rpcs_in_flight{method="WatchPlan"} 1)"));
}

TEST(ServerMetricsTest, SaturationFlipsAt90PercentAndClearsBelow75) {
  ServerMetrics metrics;
  std::vector<bool> flips;
  metrics.WatchSaturation(/*handler_threads=*/10,
                          [&](bool saturated) { flips.push_back(saturated); });
  for (int i = 0; i < 8; ++i) metrics.RecordRpcStart("Plan");
  EXPECT_TRUE(flips.empty());
  EXPECT_THAT(Text(metrics), HasSubstr("shardplan_rpc_calls_in_flight 8"));
  metrics.RecordRpcStart("GetPlan");  // 9 of 10: saturated
  EXPECT_EQ(flips, std::vector<bool>{true});
  EXPECT_THAT(Text(metrics), HasSubstr("shardplan_rpc_saturated 1"));
  metrics.RecordRpc("GetPlan", "OK", 0.1);  // 8: still saturated (clears below 8)
  metrics.RecordRpc("Plan", "OK", 0.1);     // 7: clear
  EXPECT_EQ(flips, (std::vector<bool>{true, false}));
  EXPECT_THAT(Text(metrics), HasSubstr("shardplan_rpc_saturated 0"));
}

TEST(ServerMetricsTest, BuildInfoAndTheScrapeTimeCollectors) {
  ServerMetrics metrics;
  const std::string text = Text(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_build_info{build_type=\""));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("version=\"", GetBuildInfo().version, "\"} 1")));
  EXPECT_FALSE(GetBuildInfo().git_commit.empty());  // "unknown" outside a git checkout

  std::string all;
  for (const auto& collectable : metrics.collectables()) {
    all += prometheus::TextSerializer().Serialize(collectable->Collect());
  }
  EXPECT_THAT(all, HasSubstr("shardplan_build_info{"));
  EXPECT_THAT(all, HasSubstr("process_resident_memory_bytes "));
  EXPECT_THAT(all, HasSubstr("process_start_time_seconds "));
  EXPECT_THAT(all, HasSubstr(R"(shardplan_log_lines_total{level="warn"} )"));
  EXPECT_THAT(all, HasSubstr("shardplan_log_lines_suppressed_total "));
}

TEST(MetricsEndpointTest, ServesEveryCollectable) {
  ServerMetrics metrics;
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> endpoint =
      MetricsEndpoint::Start("127.0.0.1:0", metrics.collectables());
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  EXPECT_GT((*endpoint)->port(), 0);
}

TEST(MetricsEndpointTest, PortZeroPicksAPortAndABusyPortIsAnError) {
  ServerMetrics metrics;
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> first =
      MetricsEndpoint::Start("127.0.0.1:0", metrics.registry());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_GT((*first)->port(), 0);
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> second =
      MetricsEndpoint::Start("127.0.0.1:" + std::to_string((*first)->port()), metrics.registry());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("metrics_address"));
}

}  // namespace
}  // namespace shardplan
