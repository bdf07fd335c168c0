#include "server/policy_vetting.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "costmodels/artifacts/policy_bundle.h"
#include "costmodels/model_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "prometheus/text_serializer.h"
#include "server/metrics.h"
#include "server/model_reloader.h"
#include "tests/integration/support/test_bundles.h"
#include "tests/support/test_policies.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A policy algorithm whose policy has "finite but absurd weights": every table on device 0.
class AllOnDeviceZero final : public Algorithm {
 public:
  AllOnDeviceZero() {
    info_.name = "all_on_zero";
    info_.sharding_types = {ShardingType::kTableWise};
    info_.uses_policy = true;
    info_.params = {PolicyParamSpec()};
  }
  const AlgorithmInfo& info() const override { return info_; }
  absl::Status CheckPolicy(const Policy&) const override { return absl::OkStatus(); }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext&) const override {
    Plan plan;
    for (const Table& table : task.tables) {
      plan.tables.push_back(TableSharding{
          table.name, ShardingType::kTableWise, {Shard{0, 0, table.rows, 0, table.dim}}});
    }
    return plan;
  }

 private:
  AlgorithmInfo info_;
};

TEST(PolicyVettingTest, APolicyThatPlansAbsurdlyIsNotServed) {
  AlgorithmRegistry algorithms = BuiltinAlgorithms();
  algorithms.Register(std::make_unique<AllOnDeviceZero>());
  Policy absurd;
  absurd.name = "absurd";
  absurd.version = "1";
  absurd.algorithm = "all_on_zero";
  const absl::Status vetted = VetPolicy(absurd, algorithms);
  EXPECT_EQ(vetted.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(vetted.message()),
              HasSubstr("policy absurd@1: vetted on a sanity task of 32 tables on 8 devices under "
                        "analytic@1, its plan costs "));
  EXPECT_THAT(std::string(vetted.message()), HasSubstr("against size_lookup_greedy's"));
  EXPECT_THAT(std::string(vetted.message()), HasSubstr("at most 3.0x"));
}

// DreamShard's test policy with every weight 0: finite, of the right shapes, so CheckPolicy
// passes; every device's logit is equal, and the argmax's first-on-ties puts every table on
// device 0.
Policy ZeroWeightsDreamShardPolicy(const std::string& version) {
  Policy policy = test::DreamShardTestPolicy();
  policy.name = "dreamshard-zero";
  policy.version = version;
  for (auto& [name, tensor] : policy.tensors) std::fill(tensor.data.begin(), tensor.data.end(), 0);
  return policy;
}

TEST(PolicyVettingTest, ABundleOfAbsurdFiniteWeightsIsRefusedAndNeverBecomesTheDefault) {
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  const Policy absurd = ZeroWeightsDreamShardPolicy("2");
  ASSERT_TRUE(algorithms.CheckPolicy(absurd).ok()) << "shapes and finiteness pass";
  const absl::Status vetted = VetPolicy(absurd, algorithms);
  EXPECT_EQ(vetted.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(vetted.message()), HasSubstr("its weights plan absurdly"));

  // Through the server's reload path: version 1 (sensible weights) and a newer version 2 (the
  // absurd ones) in models_dir. Only 1 is served, so it stays the default of its algorithm.
  const std::string root = testing_bundles::FreshTempDir("vetting");
  PolicyBundleInfo older, newer;
  older.created = "2026-11-26T09:00:00Z";
  newer.created = "2026-11-27T09:00:00Z";
  Policy sensible = test::DreamShardTestPolicy();
  sensible.name = "dreamshard-zero";
  sensible.version = "1";
  ASSERT_TRUE(WritePolicyBundle(root, older, sensible).ok());
  ASSERT_TRUE(WritePolicyBundle(root, newer, absurd).ok());
  ModelRegistry models;
  ASSERT_TRUE(RegisterBuiltinModels(models).ok());
  PolicyRegistry policies;
  ServerMetrics metrics;
  ModelReloader reloader(root, &models, &metrics,
                         {.policies = &policies, .check_policy = ServedPolicyCheck(&algorithms)});
  absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->policies_loaded, ElementsAre("dreamshard-zero@1"));
  ASSERT_EQ(report->refused.size(), 1u);
  EXPECT_EQ(report->refused[0].kind, "invalid");
  EXPECT_THAT(report->refused[0].reason,
              HasSubstr("policy dreamshard-zero@2: vetted on a sanity task of 32 tables"));
  absl::StatusOr<ResolvedPolicy> chosen = policies.Resolve("", "dreamshard", "");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->policy->id(), "dreamshard-zero@1");
  EXPECT_THAT(prometheus::TextSerializer().Serialize(metrics.registry()->Collect()),
              HasSubstr(R"(shardplan_model_load_failures_total{reason="invalid"} 1)"));
  reloader.Stop();
  std::filesystem::remove_all(root);
}

TEST(PolicyVettingTest, TheShippedPoliciesPass) {
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  for (const std::string name : {"autoshard-sim-h100-sxm", "autoshard-sim-rtx2080ti",
                                 "dreamshard-sim-h100-sxm", "dreamshard-sim-rtx2080ti"}) {
    const std::filesystem::path dir = std::filesystem::path(SHARDPLAN_SOURCE_DIR) / "models" / name;
    for (const auto& version : std::filesystem::directory_iterator(dir)) {
      absl::StatusOr<LoadedPolicy> loaded = ReadPolicyBundle(version.path().string());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      const absl::Status vetted = VetPolicy(*loaded->policy, algorithms);
      EXPECT_TRUE(vetted.ok()) << vetted;
    }
  }
  // Random weights may pass (DreamShard's test policy does) or not (AutoShard's plans 6.9x
  // greedy's cost): vetting judges plans, not training.
  EXPECT_TRUE(VetPolicy(test::DreamShardTestPolicy(), algorithms).ok());
}

}  // namespace
}  // namespace shardplan
