#include "planner/algorithms/alis/shard_weights.h"

#include <vector>

#include "gtest/gtest.h"

namespace shardplan::alis {
namespace {

TEST(ShardWeightsTest, DecayLetsTheLatestIncrementWin) {
  ShardWeights weights(3);
  for (int update = 0; update < 5; ++update) weights.AddOne(7, update, 0.5, 0, 1.0f);
  weights.AddOne(7, 5, 0.5, 2, 1.0f);
  // Shard 0 holds 1 + 1/2 + ... + 1/16 = 1.9375, halved once more: 0.97 < 1.
  EXPECT_EQ(weights.Argmax(7, 0), 2);
  ShardWeights literal(3);  // decay 1: the paper's W += dW
  for (int update = 0; update < 5; ++update) literal.AddOne(7, update, 1.0, 0, 1.0f);
  literal.AddOne(7, 5, 1.0, 2, 1.0f);
  EXPECT_EQ(literal.Argmax(7, 2), 0);
}

TEST(ShardWeightsTest, TiesGoToThePreferredShardAndUnknownRowsHaveNone) {
  ShardWeights weights(4);
  const std::vector<float> amounts = {0.0f, 2.0f, 0.0f, 2.0f};
  weights.Add(1, 0, 0.5, amounts);
  EXPECT_EQ(weights.Argmax(1, 3), 3);
  EXPECT_EQ(weights.Argmax(1, 0), 1);
  EXPECT_EQ(weights.Argmax(2, 0), kUnassignedShard);
}

TEST(ShardWeightsTest, ForgetsRowsUnseenSinceAnUpdate) {
  ShardWeights weights(2);
  weights.AddOne(1, 0, 0.5, 0, 1.0f);
  weights.AddOne(2, 3, 0.5, 1, 1.0f);
  weights.ForgetRowsBefore(2);
  EXPECT_EQ(weights.rows(), 1);
  EXPECT_EQ(weights.Argmax(1, 0), kUnassignedShard);
  EXPECT_EQ(weights.Argmax(2, 0), 1);
}

}  // namespace
}  // namespace shardplan::alis
