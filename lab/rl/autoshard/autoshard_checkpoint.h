#ifndef SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_CHECKPOINT_H_
#define SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_CHECKPOINT_H_

// Everything an AutoShard training run needs to continue exactly where it stopped: parameters,
// Adam's moments, the RNG, the cost buffer, counters and the curve. Written atomically
// (base/atomic_file.h), so an interrupted write leaves the previous checkpoint.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lab/rl/autoshard/autoshard_learner.h"

namespace shardplan::autoshard {

// One point per policy update.
struct CurvePoint {
  int64_t update = 0;        // 1-based
  int64_t steps = 0;         // the reference's step count: updates x T x B
  int64_t episodes = 0;      // episodes run so far
  double mean_reward = 0.0;  // over this update's episodes
  double feasible_fraction = 0.0;
  double cost_loss = -1.0;  // the last cost update's MSE (-1: none, as the reference logs)
  double pg_loss = 0.0;
  double baseline_loss = 0.0;
  double entropy_loss = 0.0;
  double wall_seconds = 0.0;  // since the run (and its resumed parts) began
};

// The reference's RingBuffer: the newest `capacity` samples, overwritten oldest first.
struct CostBuffer {
  int64_t capacity = 5000;
  int64_t start = 0;                // the next slot written
  std::vector<CostSample> samples;  // size min(appended, capacity)

  void Append(CostSample sample);
  int64_t size() const { return static_cast<int64_t>(samples.size()); }
};

struct TrainerState {
  std::string fingerprint;  // options and data of the run: a resume must match
  int64_t next_update = 0;  // 0-based
  int64_t episodes = 0;
  std::vector<float> params;
  std::vector<float> adam_m, adam_v;
  int64_t adam_steps = 0;
  std::string rng;  // std::mt19937_64's state as operator<< writes it
  CostBuffer buffer;
  std::vector<CurvePoint> curve;
};

absl::Status WriteCheckpoint(const std::string& path, const TrainerState& state);
// NOT_FOUND when there is no file; FAILED_PRECONDITION naming the path for a corrupt one.
absl::StatusOr<TrainerState> ReadCheckpoint(const std::string& path);

}  // namespace shardplan::autoshard

#endif  // SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_CHECKPOINT_H_
