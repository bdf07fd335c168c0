#include "planner/algorithms/dreamshard/dreamshard_planner.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/dreamshard/dreamshard_episode.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/table.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/support/test_policies.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;
using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

absl::StatusOr<Plan> PlanWith(const Task& task, const Policy& policy) {
  DreamShardPlanner planner;
  test::FakeCostModel model;
  PlanTaskOptions options;
  options.policy = &policy;
  return PlanTask(planner, task, model, options);
}

TEST(DreamShardFeaturesTest, ZScoresRowsSizesAndPoolingPerTaskWithThePopulationStd) {
  Task task = MakeTask({MakeTable("a", 100, 4, 1.0), MakeTable("b", 300, 8, 3.0)}, 2, kGiB);
  task.tables[0].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[0].access_bins[3] = 1.0;
  const std::vector<double> missing(kNumAccessBins, 0.5);
  const std::vector<float> f = DreamShardFeatures(task, missing);
  ASSERT_EQ(f.size(), 2u * kDreamShardFeatures);
  // rows 100, 300: mean 200, population std 100.
  EXPECT_FLOAT_EQ(f[0], 4.0f);   // dim raw
  EXPECT_FLOAT_EQ(f[1], -1.0f);  // row
  EXPECT_FLOAT_EQ(f[2], -1.0f);  // pooling factor
  EXPECT_FLOAT_EQ(f[3], -1.0f);  // size 400 vs 2400
  EXPECT_FLOAT_EQ(f[21 + 1], 1.0f);
  EXPECT_FLOAT_EQ(f[4 + 3], 1.0f);  // a's own bins
  EXPECT_FLOAT_EQ(f[4], 0.0f);
  EXPECT_FLOAT_EQ(f[21 + 4], 0.5f);  // b has none: the policy's
}

TEST(DreamShardFeaturesTest, AZeroStdSubtractsTheMeanOnly) {
  const Task task = MakeTask({MakeTable("a", 100, 4, 2.0), MakeTable("b", 100, 4, 2.0)}, 2, kGiB);
  const std::vector<float> f = DreamShardFeatures(task, {});
  for (float v : f) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_EQ(f[2], 0.0f);
  EXPECT_EQ(f[3], 0.0f);
}

TEST(DreamShardPlannerTest, RunsTheTestPolicyAndRecordsIt) {
  const Policy policy = test::DreamShardTestPolicy();
  std::vector<Table> tables;
  for (int i = 0; i < 12; ++i)
    tables.push_back(MakeTable(absl::StrCat("t", i), 1000 * (i + 1), 16, i + 1));
  const Task task = MakeTask(std::move(tables), 4, kGiB);
  const absl::StatusOr<Plan> plan = PlanWith(task, policy);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  EXPECT_EQ(plan->parameters.at("policy"), "dreamshard-test@1");
}

TEST(DreamShardPlannerTest, PinnedTablesStayAndLegalDevicesAreTheOnesWithRoom) {
  const Policy policy = test::DreamShardTestPolicy();
  // "big" fits only device 0 (64 MiB); "pinned" goes to device 2 whatever the policy says.
  Task task =
      MakeTask({test::TableOfBytes("big", 48 * kMiB, 16), test::TableOfBytes("s1", 4 * kMiB),
                test::TableOfBytes("pinned", 2 * kMiB), test::TableOfBytes("s2", 6 * kMiB)},
               std::vector<int64_t>{64 * kMiB, 8 * kMiB, 16 * kMiB});
  task.tables[2].pinned_device = 2;
  const absl::StatusOr<Plan> plan = PlanWith(task, policy);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  for (const TableSharding& sharding : plan->tables) {
    if (sharding.table == "big") EXPECT_EQ(sharding.shards[0].device, 0);
    if (sharding.table == "pinned") EXPECT_EQ(sharding.shards[0].device, 2);
  }
}

TEST(DreamShardPlannerTest, ATableThatFitsNoDeviceIsNamedWithItsSize) {
  const Policy policy = test::DreamShardTestPolicy();
  const Task task = MakeTask({test::TableOfBytes("a", 6 * kMiB), test::TableOfBytes("b", 6 * kMiB),
                              test::TableOfBytes("c", 6 * kMiB)},
                             2, 8 * kMiB);
  const absl::StatusOr<Plan> plan = PlanWith(task, policy);
  ASSERT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << plan.status();
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("GiB"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("dreamshard"));
}

TEST(DreamShardPlannerTest, RefusesTablesThatDoNotAllowTableWise) {
  const Policy policy = test::DreamShardTestPolicy();
  Task task = MakeTask({MakeTable("a", 100, 4), MakeTable("rw_only", 100, 4)}, 2, kGiB);
  task.tables[1].allowed_sharding_types = {ShardingType::kRowWise};
  const absl::StatusOr<Plan> plan = PlanWith(task, policy);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("rw_only"));
}

TEST(DreamShardPlannerTest, TablesArePlacedByPredictedCostDescending) {
  const Policy policy = test::DreamShardTestPolicy();
  const DreamShardNet net = DreamShardNet::FromPolicy(policy).value();
  std::vector<Table> tables;
  for (int i = 0; i < 8; ++i)
    tables.push_back(MakeTable(absl::StrCat("t", i), 100 * (i + 3), 4 << (i % 4), i + 1));
  const Task task = MakeTask(std::move(tables), 3, kGiB);
  const std::vector<float> features = DreamShardFeatures(task, net.missing_bins_double());
  const DreamShardEpisode episode =
      DreamShardEpisode::Start(task, features, net, "dreamshard").value();
  double previous = INFINITY;
  for (size_t u : episode.order()) {
    float latent[kDreamShardLatent], rl[kDreamShardLatent], costs[3];
    net.TableLatents(&features[episode.units()[u].tables[0] * kDreamShardFeatures], 1, latent, rl);
    net.KernelCosts(latent, costs);
    const double predicted = static_cast<double>(costs[0]) + costs[1] + costs[2];
    EXPECT_LE(predicted, previous);
    previous = predicted;
  }
}

TEST(DreamShardPlannerTest, CheckPolicyNamesWhatIsWrong) {
  DreamShardPlanner planner;
  const Policy good = test::DreamShardTestPolicy();
  EXPECT_TRUE(planner.CheckPolicy(good).ok());
  const auto refused = [&](Policy policy, const std::string& what) {
    const absl::Status status = planner.CheckPolicy(policy);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << what;
    EXPECT_THAT(std::string(status.message()), HasSubstr(what));
  };
  Policy p = good;
  p.algorithm = "autoshard";
  refused(p, "autoshard");
  p = good;
  p.architecture = "dreamshard-2";
  refused(p, "dreamshard-2");
  p = good;
  p.tensors.erase("cost_fc_1.bias");
  refused(p, "cost_fc_1.bias");
  p = good;
  p.tensors["table_fc_0.weight"].shape = {21, 128};
  refused(p, "table_fc_0.weight");
  p = good;
  p.tensors["policy_net.bias"].data.push_back(0.0f);
  refused(p, "policy_net.bias");
  p = good;
  p.tensors["overall_fc_1.weight"].data[3] = NAN;
  refused(p, "overall_fc_1.weight");
  p = good;
  p.tensors["value_net.weight"] = PolicyTensor{{1, 256}, std::vector<float>(256, 0.0f)};
  refused(p, "value_net.weight");
  p = good;
  p.constants.erase(MissingAccessBinConstant(16));
  refused(p, "missing_access_bins.bin_16");
}

}  // namespace
}  // namespace shardplan
