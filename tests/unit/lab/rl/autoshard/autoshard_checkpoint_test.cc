// AutoShard checkpoints: what is written is read back, the cost buffer's ring included.

#include "lab/rl/autoshard/autoshard_checkpoint.h"

#include <string>

#include "gtest/gtest.h"

namespace shardplan::autoshard {
namespace {

TEST(AutoShardCheckpointTest, RoundTrips) {
  TrainerState state;
  state.fingerprint = "abc";
  state.next_update = 3;
  state.episodes = 17;
  state.params = {1.0f, -2.0f};
  state.adam_m = {0.5f, 0.25f};
  state.adam_v = {0.1f, 0.2f};
  state.adam_steps = 9;
  state.rng = "12 34";
  state.buffer.capacity = 2;
  state.buffer.Append({{1.0f, 2.0f}, 3.0f});
  state.buffer.Append({{4.0f}, 5.0f});
  state.buffer.Append({{6.0f}, 7.0f});  // overwrites the oldest
  state.curve.push_back(CurvePoint{.update = 1, .mean_reward = 0.5});
  const std::string path = ::testing::TempDir() + "/autoshard.checkpoint";
  ASSERT_TRUE(WriteCheckpoint(path, state).ok());
  const absl::StatusOr<TrainerState> read = ReadCheckpoint(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->fingerprint, "abc");
  EXPECT_EQ(read->params, state.params);
  EXPECT_EQ(read->adam_v, state.adam_v);
  EXPECT_EQ(read->rng, "12 34");
  ASSERT_EQ(read->buffer.samples.size(), 2u);
  EXPECT_EQ(read->buffer.samples[0].cost, 7.0f);
  EXPECT_EQ(read->buffer.start, 1);
  ASSERT_EQ(read->curve.size(), 1u);
  EXPECT_EQ(read->curve[0].mean_reward, 0.5);
  EXPECT_EQ(ReadCheckpoint(path + ".missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace shardplan::autoshard
