#include "lab/training/compute_objective.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/comm_objective.h"
#include "tests/unit/lab/training/gradient_check.h"
#include "tests/unit/lab/training/training_test_data.h"

namespace shardplan::training {
namespace {

TEST(ComputeObjectiveTest, GradientThroughTheSetSumMatchesFiniteDifferences) {
  const ToySets sets = MakeToySets(6, 5, 11);
  ComputeObjective objective(sets.features, sets.row_offsets, sets.labels,
                             MlpShape({5, 8, 6}, true), MlpShape({6, 7, 1}, false));
  ExpectGradientMatchesFiniteDifferences(objective, {0, 2, 3, 5}, 1);
}

TEST(ComputeObjectiveTest, PredictionIsPermutationInvariantOverRows) {
  ToySets sets = MakeToySets(1, 5, 4);
  // Make the only sample hold exactly two rows, then swap them.
  sets.features.resize(10);
  sets.row_offsets = {0, 2};
  ToySets swapped = sets;
  std::rotate(swapped.features.begin(), swapped.features.begin() + 5, swapped.features.end());
  const MlpShape table({5, 8, 6}, true);
  const MlpShape pred({6, 7, 1}, false);
  ComputeObjective a(sets.features, sets.row_offsets, sets.labels, table, pred);
  ComputeObjective b(swapped.features, swapped.row_offsets, swapped.labels, table, pred);
  std::mt19937_64 rng(2);
  std::vector<float> params(a.num_params());
  a.InitParams(rng, params);
  a.Prepare(params);
  b.Prepare(params);
  float pa = 0.0f;
  float pb = 0.0f;
  auto wa = a.NewWorkspace();
  auto wb = b.NewWorkspace();
  a.Predict(params, std::vector<int64_t>{0}, &pa, *wa);
  b.Predict(params, std::vector<int64_t>{0}, &pb, *wb);
  EXPECT_NEAR(pa, pb, 1e-6);
}

}  // namespace
}  // namespace shardplan::training
