// The DreamShard policies shipped in models/ load, pass CheckPolicy and plan a task of the
// distribution they were trained on.
#include <string>

#include "costmodels/artifacts/policy_bundle.h"
#include "gtest/gtest.h"
#include "lab/data/generators.h"
#include "lab/data/table_pool.h"
#include "planner/algorithms/dreamshard/dreamshard_planner.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

class ShippedDreamShardPolicyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedDreamShardPolicyTest, LoadsChecksAndPlans) {
  const std::string dir = std::string(SHARDPLAN_SOURCE_DIR) + "/models/" + GetParam() + "/1";
  const absl::StatusOr<LoadedPolicy> loaded = ReadPolicyBundle(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  DreamShardPlanner planner;
  ASSERT_TRUE(planner.CheckPolicy(*loaded->policy).ok()) << planner.CheckPolicy(*loaded->policy);
  EXPECT_EQ(loaded->policy->hardware_profile, GetParam().substr(std::string("dreamshard-").size()));

  const absl::StatusOr<TablePool> pool =
      LoadTablePool(std::string(SHARDPLAN_SOURCE_DIR) + "/data/table_pool/dlrm_856.json");
  ASSERT_TRUE(pool.ok()) << pool.status();
  TaskGenOptions options;
  options.num_devices = 8;
  options.max_dim = 64;
  const Task task = CanonicalTask(GenerateTask(*pool, options, 4242, 0).value());
  test::FakeCostModel model;
  PlanTaskOptions plan_options;
  plan_options.policy = loaded->policy.get();
  const absl::StatusOr<Plan> plan = PlanTask(planner, task, model, plan_options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  EXPECT_EQ(plan->parameters.at("policy"), GetParam() + "@1");
}

INSTANTIATE_TEST_SUITE_P(Profiles, ShippedDreamShardPolicyTest,
                         ::testing::Values("dreamshard-sim-rtx2080ti", "dreamshard-sim-h100-sxm"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace shardplan
