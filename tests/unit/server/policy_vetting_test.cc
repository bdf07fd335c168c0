#include "server/policy_vetting.h"

#include <filesystem>
#include <memory>
#include <string>

#include "costmodels/artifacts/policy_bundle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "tests/support/test_policies.h"

namespace shardplan {
namespace {

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
