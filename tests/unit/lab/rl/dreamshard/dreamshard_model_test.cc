#include "lab/rl/dreamshard/dreamshard_model.h"

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "planner/algorithms/dreamshard/dreamshard_episode.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/table.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::rl {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;

// A task of `n` tables of varied rows, dims, pooling factors and histograms.
Task VariedTask(int n, int devices, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Table> tables;
  for (int i = 0; i < n; ++i) {
    Table table = MakeTable(absl::StrCat("t", i), 1000 + static_cast<int64_t>(rng() % 100000),
                            4 << (rng() % 5), 1.0 + static_cast<double>(rng() % 40));
    table.access_bins.assign(kNumAccessBins, 0.0);
    table.access_bins[rng() % 4] = 0.7;
    table.access_bins[4 + rng() % 8] = 0.3;
    tables.push_back(table);
  }
  return MakeTask(std::move(tables), devices, kGiB);
}

std::vector<float> RandomParams(uint64_t seed) {
  std::vector<float> params(static_cast<size_t>(Layout().num_params()));
  std::mt19937_64 rng(seed);
  InitDreamShardParams(rng, params);
  return params;
}

// Central differences of `loss` at a sample of parameters of every sub-network against the
// analytic gradient.
template <typename Loss>
void CheckGradient(std::vector<float> params, const Loss& loss, const std::vector<int>& mlps) {
  std::vector<float> grad(params.size(), 0.0f);
  loss(params, grad);
  std::vector<float> unused(params.size());
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int m : mlps) {
    const std::span<float> sub = Layout().Of(m, std::span<float>(params));
    const size_t base = static_cast<size_t>(sub.data() - params.data());
    for (int k = 0; k < 12; ++k) {
      const size_t i = base + rng() % sub.size();
      const float saved = params[i];
      const float h = 2e-3f;
      params[i] = saved + h;
      const double up = loss(params, unused);
      params[i] = saved - h;
      const double down = loss(params, unused);
      params[i] = saved;
      const double numeric = (up - down) / (2.0 * h);
      EXPECT_NEAR(grad[i], numeric, 1e-2 * std::abs(numeric) + 2e-3)
          << DreamShardMlpSpecs()[m].name << " parameter " << i - base;
      if (std::abs(numeric) > 1e-2) ++checked;
    }
  }
  EXPECT_GT(checked, static_cast<int>(mlps.size()));  // most gradients are not tiny
}

TEST(DreamShardModelTest, CostLossGradientMatchesFiniteDifferences) {
  const std::vector<Task> tasks = {VariedTask(7, 3, 1), VariedTask(5, 2, 2)};
  std::vector<std::vector<float>> features;
  for (const Task& task : tasks) features.push_back(DreamShardFeatures(task, {}));
  // Plans with an empty device (the zero row, and ties in the max over devices).
  std::vector<OverallSample> overall = {{0, {{0, 3}, {1, 2, 4}, {5, 6}}, 3.5f},
                                        {0, {{6, 5, 4, 3, 2, 1, 0}, {}, {}}, 9.0f},
                                        {1, {{0, 1}, {2, 3, 4}}, 2.0f}};
  std::vector<KernelSample> kernel = {{0, {0, 3}, {1.0f, 0.5f, 0.2f}},
                                      {1, {}, {0.1f, 0.0f, 0.3f}},
                                      {1, {2, 3, 4}, {2.0f, 0.4f, 0.6f}}};
  std::vector<const OverallSample*> o;
  for (const OverallSample& s : overall) o.push_back(&s);
  std::vector<const KernelSample*> k;
  for (const KernelSample& s : kernel) k.push_back(&s);
  DreamShardWorkspace ws;
  const auto loss = [&](const std::vector<float>& params, std::vector<float>& grad) {
    return DreamShardCostLoss(params, features, o, k, ws, grad);
  };
  CheckGradient(RandomParams(3), loss,
                {kTableFc, kForwardFc, kCommunicationFc, kBackwardFc, kOverallFc});
}

TEST(DreamShardModelTest, CostLossLeavesThePolicyNetworksAlone) {
  const Task task = VariedTask(4, 2, 5);
  const std::vector<std::vector<float>> features = {DreamShardFeatures(task, {})};
  const OverallSample overall{0, {{0, 1}, {2, 3}}, 1.0f};
  const KernelSample kernel{0, {0, 1}, {1.0f, 1.0f, 1.0f}};
  const std::vector<const OverallSample*> o = {&overall};
  const std::vector<const KernelSample*> k = {&kernel};
  DreamShardWorkspace ws;
  const std::vector<float> params = RandomParams(1);
  std::vector<float> grad(params.size(), 0.0f);
  DreamShardCostLoss(params, features, o, k, ws, grad);
  for (int m : {kRlTableFc, kCostFc, kPolicyNet}) {
    for (float g : Layout().Of(m, std::span<const float>(grad))) ASSERT_EQ(g, 0.0f);
  }
}

// Episodes of `task` placed by a fixed device pattern, recorded as the trainer records them.
std::vector<RlEpisode> Episodes(const Task& task, const std::vector<float>& features,
                                const DreamShardNet& net, int count) {
  std::vector<RlEpisode> episodes;
  for (int e = 0; e < count; ++e) {
    DreamShardEpisode episode = DreamShardEpisode::Start(task, features, net, "dreamshard").value();
    RlEpisode record;
    while (!episode.done()) {
      RlStep step;
      step.legal = episode.legal();
      for (int32_t d : step.legal) step.prefix.push_back(episode.shards()[d].size());
      step.action = static_cast<int>((episode.step() * 7 + e) % step.legal.size());
      step.reward = 5.0f * (static_cast<float>(e) - 0.7f);
      episode.Place(step.action);
      record.steps.push_back(step);
    }
    record.shards = episode.shards();
    episodes.push_back(record);
  }
  return episodes;
}

TEST(DreamShardModelTest, RlLossGradientMatchesFiniteDifferences) {
  Task task = VariedTask(6, 3, 4);
  task.tables[2].pinned_device = 1;  // a shard that starts non-empty
  const std::vector<float> features = DreamShardFeatures(task, {});
  const std::vector<float> params = RandomParams(9);
  const DreamShardNet net =
      DreamShardNet::FromPolicy(DreamShardPolicyFromParams(params, {})).value();
  const std::vector<RlEpisode> episodes = Episodes(task, features, net, 3);
  DreamShardWorkspace ws;
  const auto loss = [&](const std::vector<float>& p, std::vector<float>& grad) {
    return DreamShardRlLoss(p, features, episodes, /*entropy_weight=*/0.3, ws, grad);
  };
  CheckGradient(params, loss, {kRlTableFc, kCostFc, kPolicyNet});
  // The costs are detached: table_fc and the heads get nothing.
  std::vector<float> grad(params.size(), 0.0f);
  loss(params, grad);
  for (int m : {kTableFc, kForwardFc, kCommunicationFc, kBackwardFc, kOverallFc}) {
    for (float g : Layout().Of(m, std::span<const float>(grad))) ASSERT_EQ(g, 0.0f);
  }
}

TEST(DreamShardModelTest, TrainerLogitsAreTheInferenceLogitsBitForBit) {
  Task task = VariedTask(9, 4, 6);
  task.tables[0].pinned_device = 3;
  const std::vector<float> features = DreamShardFeatures(task, {});
  const std::vector<float> params = RandomParams(11);
  const DreamShardNet net =
      DreamShardNet::FromPolicy(DreamShardPolicyFromParams(params, {})).value();
  DreamShardEpisode episode = DreamShardEpisode::Start(task, features, net, "dreamshard").value();
  RlEpisode record;
  std::vector<float> inference;
  while (!episode.done()) {
    RlStep step;
    step.legal = episode.legal();
    for (int32_t d : step.legal) step.prefix.push_back(episode.shards()[d].size());
    inference.insert(inference.end(), episode.legal_logits().begin(), episode.legal_logits().end());
    step.action = static_cast<int>(episode.step() % step.legal.size());
    episode.Place(step.action);
    record.steps.push_back(step);
  }
  record.shards = episode.shards();
  std::vector<float> trainer;
  DreamShardWorkspace ws;
  std::vector<float> grad(params.size(), 0.0f);
  DreamShardRlLoss(params, features, std::vector<RlEpisode>{record}, 0.001, ws, grad, &trainer);
  ASSERT_EQ(trainer.size(), inference.size());
  for (size_t i = 0; i < trainer.size(); ++i) EXPECT_EQ(trainer[i], inference[i]) << i;
}

TEST(DreamShardModelTest, PolicyFromParamsIsARunnablePolicy) {
  const std::vector<float> params = RandomParams(2);
  Policy policy = DreamShardPolicyFromParams(params, std::vector<double>(kNumAccessBins, 0.1));
  policy.name = "p";
  policy.version = "1";
  EXPECT_TRUE(CheckDreamShardPolicy(policy).ok()) << CheckDreamShardPolicy(policy);
  EXPECT_EQ(policy.tensors.at("table_fc_0.weight").shape, (std::vector<uint32_t>{128, 21}));
  EXPECT_EQ(policy.tensors.at("policy_net.weight").shape, (std::vector<uint32_t>{1, 64}));
  EXPECT_FALSE(policy.tensors.contains("value_net.weight"));
}

}  // namespace
}  // namespace shardplan::rl
