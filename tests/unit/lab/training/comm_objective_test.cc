#include "lab/training/comm_objective.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lab/training/compute_objective.h"
#include "tests/unit/lab/training/gradient_check.h"
#include "tests/unit/lab/training/training_test_data.h"

namespace shardplan::training {
namespace {

TEST(CommObjectiveTest, GradientMatchesFiniteDifferences) {
  const ToyLinear data = MakeToyLinear(5, 6, 3, 5);
  CommObjective objective(data.inputs, data.labels, MlpShape({6, 9, 7, 3}, false));
  EXPECT_EQ(objective.num_outputs(), 3);
  ExpectGradientMatchesFiniteDifferences(objective, {4, 1, 2}, 3);
}

TEST(CommObjectiveTest, DefaultShapeIsTheReferences) {
  const MlpShape shape = CommObjective::DefaultShape(8, 4);
  ASSERT_EQ(shape.num_layers(), 5);
  EXPECT_EQ(shape.in(0), 8);
  EXPECT_EQ(shape.out(0), 128);
  EXPECT_EQ(shape.out(1), 64);
  EXPECT_EQ(shape.out(2), 32);
  EXPECT_EQ(shape.out(3), 16);
  EXPECT_EQ(shape.output_size(), 4);
  EXPECT_FALSE(shape.relu_on_output());
}

}  // namespace
}  // namespace shardplan::training
