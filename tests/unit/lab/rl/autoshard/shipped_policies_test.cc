// The AutoShard policies shipped in models/ read back as bundles, pass CheckPolicy and plan.

#include <string>

#include "absl/strings/str_cat.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "gtest/gtest.h"
#include "planner/algorithms/autoshard/autoshard_planner.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

TEST(ShippedAutoShardPoliciesTest, ReadCheckAndPlan) {
  const AutoShardPlanner planner;
  for (const std::string profile : {"sim-rtx2080ti", "sim-h100-sxm"}) {
    SCOPED_TRACE(profile);
    const absl::StatusOr<LoadedPolicy> loaded =
        ReadPolicyBundle(absl::StrCat(SHARDPLAN_SOURCE_DIR, "/models/autoshard-", profile, "/1"));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const Policy& policy = *loaded->policy;
    EXPECT_EQ(policy.hardware_profile, profile);
    EXPECT_EQ(loaded->info.training.updates, 125);
    ASSERT_TRUE(planner.CheckPolicy(policy).ok()) << planner.CheckPolicy(policy);

    std::vector<Table> tables;
    for (int i = 0; i < 12; ++i) {
      tables.push_back(
          test::MakeTable(absl::StrCat("t", i), 10000 * (i + 1), 4 << (i % 5), 1.0 + 3 * i));
    }
    const Task task = test::MakeTask(std::move(tables), 4, test::kGiB);
    test::FakeCostModel model;
    PlanTaskOptions options;
    options.policy = &policy;
    const absl::StatusOr<Plan> plan = PlanTask(planner, task, model, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(ValidatePlan(task, *plan).ok());
    EXPECT_EQ(plan->parameters.at("policy"), absl::StrCat("autoshard-", profile, "@1"));
  }
}

}  // namespace
}  // namespace shardplan
