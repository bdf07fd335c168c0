// The AutoShard algorithm: which policies it accepts, its features, and that its plans honour
// pins and (with mask_memory) memory.

#include "planner/algorithms/autoshard/autoshard_planner.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/autoshard/autoshard_episode.h"
#include "planner/algorithms/autoshard/autoshard_features.h"
#include "planner/algorithms/autoshard/autoshard_network.h"
#include "planner/domain/validation.h"
#include "planner/estimators/typical_access.h"
#include "planner/framework/plan_task.h"
#include "planner/search/placement_units.h"
#include "tests/support/test_policies.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;
using ::testing::HasSubstr;

void ExpectRefused(const Policy& policy, const std::string& what) {
  const AutoShardPlanner planner;
  const absl::Status status = planner.CheckPolicy(policy);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << what;
  EXPECT_THAT(std::string(status.message()), HasSubstr(what));
}

TEST(AutoShardPlannerTest, CheckPolicyAcceptsItsArchitectureAndNamesWhatIsWrong) {
  const AutoShardPlanner planner;
  const Policy good = test::AutoShardTestPolicy();
  EXPECT_TRUE(planner.CheckPolicy(good).ok()) << planner.CheckPolicy(good);

  Policy p = good;
  p.algorithm = "dreamshard";
  ExpectRefused(p, "algorithm is \"dreamshard\"");
  p = good;
  p.architecture = "autoshard-2";
  ExpectRefused(p, "architecture is \"autoshard-2\"");
  p = good;
  p.tensors.erase("core.weight_hh_l1");
  ExpectRefused(p, "tensor core.weight_hh_l1 is missing");
  p = good;
  p.tensors["p_fc_0.weight"].shape = {128, 191};
  ExpectRefused(p, "tensor p_fc_0.weight has shape [128, 191], not [128, 192]");
  p = good;
  p.tensors["c_fc_1.bias"].data.push_back(0.0f);
  ExpectRefused(p, "tensor c_fc_1.bias holds 2 values");
  p = good;
  p.tensors["t_fc_0.bias"].data[3] = std::numeric_limits<float>::quiet_NaN();
  ExpectRefused(p, "tensor t_fc_0.bias is not finite");
  p = good;
  p.tensors["extra.weight"] = PolicyTensor{{1}, {0.0f}};
  ExpectRefused(p, "tensor extra.weight is not one of autoshard-1");
  p = good;
  p.constants.erase("feature_std.rows");
  ExpectRefused(p, "constant feature_std.rows is missing");
  p = good;
  p.constants["feature_std.dims"] = -1.0;
  ExpectRefused(p, "constant feature_std.dims is -1");
  p = good;
  p.constants["ablate.size"] = 0.5;
  ExpectRefused(p, "constant ablate.size is 0.5, not 0 or 1");
  p = good;
  p.constants["missing_access_bins.bin_0"] = 0.5;
  ExpectRefused(p, "constant missing_access_bins.bin_0 is not one AutoShard reads");
}

TEST(AutoShardFeaturesTest, ZScoresRawSizesAndHistograms) {
  Table a = MakeTable("a", 1000, 16, 2.0);
  a.access_bins.assign(kNumAccessBins, 0.0);
  a.access_bins[2] = 1.0;
  Table b = MakeTable("b", 3000, 16, 6.0);  // no histogram: the typical one
  b.element_type = ElementType::kFp16;
  const Task task = MakeTask({a, b}, 2, kGiB);
  const Task tasks[] = {task};
  AutoShardFeatureConfig config;
  config.stats = ComputeAutoShardFeatureStats(tasks);
  EXPECT_DOUBLE_EQ(config.stats.mean[1], 2000.0);
  EXPECT_DOUBLE_EQ(config.stats.stddev[1], 1000.0);  // population std
  EXPECT_DOUBLE_EQ(config.stats.stddev[0], 0.0);
  const std::vector<float> f = AutoShardTableFeatures(task, config);
  ASSERT_EQ(f.size(), 2u * kAutoShardFeatures);
  EXPECT_EQ(f[0], 0.0f);                                // dims: std 0, the mean subtracted only
  EXPECT_EQ(f[1], -1.0f);                               // rows
  EXPECT_EQ(f[2], -1.0f);                               // pooling factor
  EXPECT_FLOAT_EQ(f[3], 1000.0f * 16 * 4 / (1 << 30));  // fp32 bytes in GB
  EXPECT_EQ(f[4 + 2], 1.0f);
  const float* row_b = f.data() + kAutoShardFeatures;
  EXPECT_FLOAT_EQ(row_b[3], 3000.0f * 16 * 2 / (1 << 30));  // fp16: the reference's size
  const std::vector<double> typical = TypicalAccessBins(3000, 6.0);
  for (int j = 0; j < kNumAccessBins; ++j) EXPECT_EQ(row_b[4 + j], static_cast<float>(typical[j]));

  config.ablation.pooling_factor = true;
  config.ablation.distribution = true;
  const std::vector<float> ablated = AutoShardTableFeatures(task, config);
  EXPECT_EQ(ablated[2], 0.0f);
  for (int j = 0; j < kNumAccessBins; ++j) EXPECT_EQ(ablated[4 + j], 0.0f);
  EXPECT_EQ(ablated[1], -1.0f);
}

// A policy whose every logit is 0 (the last policy layer zeroed) and whose cost head predicts
// 0: argmax takes the first allowed device, the order is the task's.
Policy FlatPolicy() {
  Policy policy = test::AutoShardTestPolicy();
  for (const char* name : {"p_fc_3.weight", "p_fc_3.bias", "c_fc_1.weight", "c_fc_1.bias"}) {
    for (float& value : policy.tensors[name].data) value = 0.0f;
  }
  return policy;
}

absl::StatusOr<Plan> PlanWith(const Policy& policy, const Task& task, bool mask_memory) {
  const AutoShardPlanner planner;
  test::FakeCostModel model;
  PlanTaskOptions options;
  options.policy = &policy;
  options.params = {{"mask_memory", mask_memory ? "true" : "false"}};
  return PlanTask(planner, task, model, options);
}

TEST(AutoShardPlannerTest, MasksFullDevicesAndHonoursPins) {
  std::vector<Table> tables;
  for (int i = 0; i < 8; ++i) tables.push_back(test::TableOfBytes(absl::StrCat("t", i), kGiB));
  Task task = MakeTask(std::move(tables), 2, kGiB * 9 / 2);
  task.tables[7].pinned_device = 1;
  const Policy policy = FlatPolicy();

  const absl::StatusOr<Plan> masked = PlanWith(policy, task, true);
  ASSERT_TRUE(masked.ok()) << masked.status();
  EXPECT_TRUE(ValidatePlan(task, *masked).ok());
  // t0..t3 fill device 0, the rest go where they still fit; the pinned t7 stays on device 1.
  EXPECT_THAT(test::Devices(*masked), ::testing::ElementsAre(0, 0, 0, 0, 1, 1, 1, 1));

  // The reference's argmax over every device overfills device 0: refused as infeasible.
  const absl::StatusOr<Plan> unmasked = PlanWith(policy, task, false);
  EXPECT_EQ(unmasked.status().code(), absl::StatusCode::kFailedPrecondition) << unmasked.status();
}

TEST(AutoShardPlannerTest, RefusesTablesThatMustNotBeWhole) {
  Task task = MakeTask({MakeTable("a", 100, 8), MakeTable("b", 100, 8)}, 2, kGiB);
  task.tables[1].allowed_sharding_types = {ShardingType::kRowWise};
  const absl::StatusOr<Plan> plan = PlanWith(test::AutoShardTestPolicy(), task, true);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("\"b\""));
}

TEST(AutoShardEpisodeTest, TiesInPredictedCostKeepTheTaskOrder) {
  const AutoShardNetwork network = AutoShardNetwork::FromPolicy(FlatPolicy()).value();
  const Task task = MakeTask(
      {MakeTable("a", 10, 4), MakeTable("b", 5000, 64, 9), MakeTable("c", 700, 16, 3)}, 3, kGiB);
  const std::vector<PlacementUnit> units = TableWiseUnits(task, "autoshard").value();
  const std::vector<size_t> free_units = {0, 1, 2};
  std::vector<int32_t> device_of_unit(3, 0);
  auto first = [](size_t, const PlacementUnit&, std::span<const float>) -> absl::StatusOr<int32_t> {
    return 0;
  };
  const AutoShardEpisode episode =
      RunAutoShardEpisode(network, task, units, free_units, first, nullptr, device_of_unit).value();
  EXPECT_THAT(episode.order, ::testing::ElementsAre(0, 1, 2));
  // The actions saw shard 0's predicted cost (0 here) and its growing size.
  EXPECT_EQ(episode.action_other[0 * 6 + 1], 0.0f);
  EXPECT_GT(episode.action_other[1 * 6 + 1], 0.0f);
  EXPECT_EQ(episode.action_other[1 * 6 + 3], 0.0f);
}

}  // namespace
}  // namespace shardplan
