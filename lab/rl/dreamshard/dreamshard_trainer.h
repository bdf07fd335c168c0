#ifndef SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_TRAINER_H_
#define SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_TRAINER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "planner/domain/policy.h"
#include "planner/domain/task.h"

namespace shardplan::rl {

// The reference's train.py defaults (dreamshard/training.py's loop).
struct DreamShardTrainOptions {
  int num_iterations = 10;
  int bench_steps = 10;            // episodes measured on the hardware per iteration
  int bench_training_steps = 300;  // cost-model steps per iteration
  int batch_size = 64;             // cost-model batch (sampled with replacement)
  int rl_num_batches = 10;         // policy steps per iteration
  int rl_batch_size = 10;          // episodes per policy step, all on one random task
  double entropy_weight = 0.001;
  double learning_rate = 5e-4;  // Adam, times 1 - iteration / num_iterations
  uint64_t seed = 0;
  // Written atomically after every iteration when not empty; with `resume`, a checkpoint there
  // is continued (bit-identically to an uninterrupted run) when it matches the tasks and options.
  std::string checkpoint;
  bool resume = false;
  std::ostream* progress = nullptr;  // one line per iteration
  // When set, called with the policy after every iteration; its value is the curve's
  // `evaluation` (e.g. the argmax plans' measured cost on held-out tasks). It must not draw
  // from the trainer's randomness, so training is the same with it or without.
  std::function<absl::StatusOr<double>(const Policy&)> evaluate;
  const std::atomic<bool>* stop = nullptr;  // stops after the current iteration
};

// One iteration of the training curve.
struct DreamShardIterationStats {
  int iteration = 0;
  double mean_measured_ms = 0.0;  // the measured max latency of the sampled plans (collect_data)
  double mean_rl_reward = 0.0;    // -predicted overall cost of the RL episodes
  double cost_loss = 0.0;         // mean cost-model loss over the iteration's steps
  double learning_rate = 0.0;
  double evaluation = 0.0;  // options.evaluate's value (0 without one)
};

struct DreamShardTrainResult {
  std::vector<float> params;  // the flat layout of dreamshard_model.h
  Policy policy;              // tensors, constants, algorithm, architecture, hardware profile
  std::vector<DreamShardIterationStats> curve;
  int64_t episodes = 0;       // measured + RL episodes
  int64_t updates = 0;        // Adam steps
  double wall_seconds = 0.0;  // over every run of a resumed training
  bool interrupted = false;   // stopped before num_iterations
};

// The hardware a task's plans are measured on (a backend built for its device count).
using BackendForTask = std::function<absl::StatusOr<HardwareBackend*>(const Task&)>;

// Trains a DreamShard policy on `tasks` (canonicalised first, as the server plans them),
// measuring plans with ScorePlanOnHardware on the task's backend:
//   forward head       <- compute_ms[d]        (the forward + backward kernels, one number)
//   communication head <- backward_comm_ms[d]  (the backward all-to-all)
//   backward head      <- forward_comm_ms[d]   (the forward all-to-all, waits included)
//   overall            <- cost_ms              (max over devices of their sum)
// Deterministic for options.seed. INVALID_ARGUMENT for no tasks or bad options; the
// environment's errors (a task no plan fits) and the backend's.
absl::StatusOr<DreamShardTrainResult> TrainDreamShard(std::span<const Task> tasks,
                                                      const BackendForTask& backend,
                                                      const DreamShardTrainOptions& options);
// Every task on one backend.
absl::StatusOr<DreamShardTrainResult> TrainDreamShard(std::span<const Task> tasks,
                                                      HardwareBackend& backend,
                                                      const DreamShardTrainOptions& options);

// The mean access histogram of the tasks' tables that have one (uniform over none): the
// policy's stand-in for tables without one.
std::vector<double> MeanAccessBins(std::span<const Task> tasks);

}  // namespace shardplan::rl

#endif  // SHARDPLAN_LAB_RL_DREAMSHARD_DREAMSHARD_TRAINER_H_
