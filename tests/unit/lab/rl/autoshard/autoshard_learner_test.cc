// The AutoShard learner: its gradients against finite differences of its losses, and its
// forward pass against the inference algorithm's on the same episode.

#include "lab/rl/autoshard/autoshard_learner.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "gtest/gtest.h"
#include "lab/rl/autoshard/autoshard_params.h"
#include "planner/algorithms/autoshard/autoshard_episode.h"
#include "planner/algorithms/autoshard/autoshard_network.h"
#include "planner/search/placement_units.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::autoshard {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;

// Seven tables of varied shapes, some with access histograms, on three devices.
Task SmallTask() {
  std::vector<Table> tables;
  for (int i = 0; i < 7; ++i) {
    Table table = MakeTable(absl::StrCat("t", i), 1000 * (i + 1), 4 << (i % 4), 1.0 + 2.5 * i);
    if (i % 2 == 0) {
      table.access_bins.assign(kNumAccessBins, 0.0);
      table.access_bins[i % 5] = 0.7;
      table.access_bins[(i + 3) % 17] += 0.3;
    }
    tables.push_back(table);
  }
  return MakeTask(std::move(tables), 3, kGiB);
}

struct Fixture {
  ParamLayout layout;
  std::vector<float> params;
  AutoShardFeatureConfig config;
  Task task = SmallTask();
  std::vector<PlacementUnit> units;
  std::vector<size_t> free_units;
  std::vector<float> features;
  AutoShardEpisode episode;

  explicit Fixture(uint64_t seed) {
    std::mt19937_64 rng(seed);
    params = InitAutoShardParams(layout, rng);
    const Task tasks[] = {task};
    config.stats = ComputeAutoShardFeatureStats(tasks);
    units = TableWiseUnits(task, "autoshard").value();
    for (size_t u = 0; u < units.size(); ++u) free_units.push_back(u);
    features = AutoShardTableFeatures(task, config);
    // An episode sampled from the policy, as the trainer runs them.
    const Policy policy = AutoShardPolicyFromParams(layout, params, config);
    const AutoShardNetwork network = AutoShardNetwork::FromPolicy(policy).value();
    std::vector<int32_t> device_of_unit(units.size(), 0);
    auto sample = [&](size_t, const PlacementUnit&,
                      std::span<const float> logits) -> absl::StatusOr<int32_t> {
      return static_cast<int32_t>(UniformBelow(rng, logits.size()));
    };
    episode = RunAutoShardEpisode(network, task, units, free_units, sample, nullptr, device_of_unit)
                  .value();
  }
};

constexpr double kReward = 0.63;

// The policy-value loss of the fixture's episode plus the cost loss of two shard samples, and
// its gradient when `grad` is not null.
// The advantage holds V at `values` (the base point's), as the gradient does.
double TotalLoss(const Fixture& f, std::span<const float> params, std::vector<float>* grad,
                 std::span<const float> values, EpisodeOutputs* outputs = nullptr) {
  TransposedParams transposed;
  transposed.Update(f.layout, params);
  LearnerScratch scratch;
  std::vector<float> sink(static_cast<size_t>(f.layout.total), 0.0f);
  std::vector<float>& g = grad != nullptr ? *grad : sink;
  const EpisodeLoss loss =
      AccumulateEpisodeGradient(f.layout, params, transposed, f.features, 3, f.episode, kReward,
                                LossWeights{}, g, scratch, outputs, values);
  CostSample first, second;
  first.features.assign(f.features.begin(), f.features.begin() + 3 * kAutoShardFeatures);
  first.cost = 2.5f;
  second.features.assign(f.features.begin() + 4 * kAutoShardFeatures,
                         f.features.begin() + 6 * kAutoShardFeatures);
  second.cost = 0.7f;
  const CostSample* batch[] = {&first, &second, &first};
  const double cost = AccumulateCostGradient(f.layout, params, transposed, batch, g, scratch);
  return loss.total() + cost;
}

TEST(AutoShardLearnerTest, GradientsMatchFiniteDifferences) {
  const Fixture f(11);
  std::vector<float> grad(static_cast<size_t>(f.layout.total), 0.0f);
  EpisodeOutputs base;
  TotalLoss(f, f.params, &grad, {}, &base);
  // A sample of parameters from every module.
  const ParamLayout& l = f.layout;
  const int64_t starts[] = {l.t_fc_at, l.s_fc_at, l.a_fc_at, l.core_at,
                            l.p_fc_at, l.b_fc_at, l.c_fc_at, l.total};
  std::mt19937_64 rng(5);
  int checked = 0, close = 0;
  double worst = 0.0;
  for (int m = 0; m + 1 < 8; ++m) {
    for (int k = 0; k < 12; ++k) {
      const auto index =
          static_cast<size_t>(starts[m] + UniformBelow(rng, starts[m + 1] - starts[m]));
      std::vector<float> plus = f.params, minus = f.params;
      const float h = 2e-3f;
      plus[index] += h;
      minus[index] -= h;
      const double numeric =
          (TotalLoss(f, plus, nullptr, base.values) - TotalLoss(f, minus, nullptr, base.values)) /
          (static_cast<double>(plus[index]) - minus[index]);
      const double analytic = grad[index];
      const double error =
          std::abs(numeric - analytic) / std::max({std::abs(numeric), std::abs(analytic), 1e-2});
      ++checked;
      if (error < 2e-2) ++close;
      worst = std::max(worst, error);
    }
  }
  // A ReLU kink inside the step can spoil a rare difference; every module must agree otherwise.
  EXPECT_GE(close, checked - 2) << "worst relative error " << worst;
}

TEST(AutoShardLearnerTest, LearnerLogitsEqualTheInferenceAlgorithms) {
  const Fixture f(3);
  TransposedParams transposed;
  transposed.Update(f.layout, f.params);
  LearnerScratch scratch;
  std::vector<float> grad(static_cast<size_t>(f.layout.total), 0.0f);
  EpisodeOutputs outputs;
  AccumulateEpisodeGradient(f.layout, f.params, transposed, f.features, 3, f.episode, kReward,
                            LossWeights{}, grad, scratch, &outputs);
  const std::vector<float>& logits = outputs.logits;
  ASSERT_EQ(logits.size(), f.episode.logits.size());
  for (size_t k = 0; k < logits.size(); ++k) EXPECT_EQ(logits[k], f.episode.logits[k]) << k;
}

}  // namespace
}  // namespace shardplan::autoshard
