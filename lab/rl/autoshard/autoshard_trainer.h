#ifndef SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_TRAINER_H_
#define SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_TRAINER_H_

// AutoShard's offline training (the reference's train/act/learn, run_autoshard.py's defaults;
// docs/autoshard.md): episodes sampled from the policy on random training tasks, rewards from a
// hardware backend, advantage actor-critic updates (the synchronous case of V-trace:
// autoshard_learner.h) and cost-head updates from a ring buffer of measured shards.
// Single-threaded and deterministic for a seed; checkpoints resume bit for bit.

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "lab/rl/autoshard/autoshard_checkpoint.h"
#include "planner/algorithms/autoshard/autoshard_features.h"
#include "planner/domain/policy.h"
#include "planner/domain/task.h"

namespace shardplan::autoshard {

struct TrainOptions {
  uint64_t seed = 0;
  int64_t total_steps = 100000;  // the reference's steps: T x B per update
  int batch_size = 8;            // B: episodes' worth of unrolls per update
  int unroll_length = 100;       // T
  double learning_rate = 1e-3;   // decays linearly to 0 over total_steps
  double entropy_cost = 0.001;
  double baseline_cost = 0.5;
  double grad_norm_clipping = 40.0;
  int cost_buffer_size = 5000;
  int cost_batch_size = 512;
  int cost_updates = 20;  // per policy update
  // Ablations: the zeroed feature groups, and ablation.cost_model = no cost-head updates (the
  // reference's --disable-cost-model).
  AutoShardAblation ablation;
  std::string checkpoint_path;      // empty: no checkpoints
  int checkpoint_every = 10;        // updates
  bool resume = false;              // continue from checkpoint_path (which must exist)
  int64_t stop_after_updates = -1;  // >= 0: return after this many updates (tests of resume)
  std::ostream* progress = nullptr;
};

struct TrainResult {
  std::vector<float> params;
  AutoShardFeatureConfig config;
  Policy policy;  // algorithm, architecture, tensors, constants (identity left to the caller)
  std::vector<CurvePoint> curve;
  int64_t episodes = 0;
  int64_t updates = 0;
  double wall_seconds = 0.0;  // of this process's part of the run
  std::string data_sha256;    // TrainingTasksSha256(tasks)
};

// Hex SHA-256 of the tasks' canonical encodings (wire TaskToProto of CanonicalTask,
// deterministic serialisation, each length-prefixed), in order.
std::string TrainingTasksSha256(std::span<const Task> tasks);

// The reward of placing `task`'s tables on device_of_table: when every device fits, measured
// per-device compute costs (backend MeasureCompute at the task's batch size; an empty device
// 0 ms) give min / max; otherwise min over devices of (capacity - bytes) / capacity, the
// reference's (max_memory - max_size) / max_memory for per-device capacities. `measured`
// receives the cost of every non-empty device in the feasible case (device order).
absl::StatusOr<double> PlacementReward(HardwareBackend& backend, const Task& task,
                                       std::span<const int32_t> device_of_table,
                                       std::span<const size_t> placement_order,
                                       std::vector<std::pair<int32_t, double>>* measured);

// Trains on the tasks in canonical order (CanonicalTask: tables sorted by name), as the server
// plans them. INVALID_ARGUMENT for no tasks, a task with pinned or co-located tables (the trainer
// places tables, not units), a table that does not allow TABLE_WISE, or bad options.
absl::StatusOr<TrainResult> TrainAutoShard(HardwareBackend& backend, std::span<const Task> tasks,
                                           const TrainOptions& options);

}  // namespace shardplan::autoshard

#endif  // SHARDPLAN_LAB_RL_AUTOSHARD_AUTOSHARD_TRAINER_H_
