#include "lab/rl/autoshard/autoshard_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/seeded_rng.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "lab/rl/autoshard/autoshard_learner.h"
#include "lab/rl/autoshard/autoshard_params.h"
#include "nn/adam.h"
#include "planner/algorithms/autoshard/autoshard_episode.h"
#include "planner/algorithms/autoshard/autoshard_network.h"
#include "planner/domain/memory.h"
#include "planner/search/placement_units.h"
#include "wire/task_proto.h"

namespace shardplan::autoshard {
namespace {

using Clock = std::chrono::steady_clock;

// A training task with what every episode on it reuses.
struct TrainingTask {
  const Task* task = nullptr;
  std::vector<PlacementUnit> units;  // one per table, unit u = table u
  std::vector<size_t> all_units;     // 0..n-1
  std::vector<float> features;       // task order
};

absl::Status CheckOptions(const TrainOptions& o) {
  if (o.total_steps < 1) return absl::InvalidArgumentError("total_steps must be at least 1");
  if (o.batch_size < 1 || o.unroll_length < 1) {
    return absl::InvalidArgumentError("batch_size and unroll_length must be at least 1");
  }
  if (!(o.learning_rate > 0.0) || o.entropy_cost < 0.0 || o.baseline_cost < 0.0 ||
      !(o.grad_norm_clipping > 0.0)) {
    return absl::InvalidArgumentError(
        "learning_rate and grad_norm_clipping must be positive, entropy_cost and baseline_cost "
        "non-negative");
  }
  if (o.cost_buffer_size < 1 || o.cost_batch_size < 1 || o.cost_updates < 0) {
    return absl::InvalidArgumentError(
        "cost_buffer_size and cost_batch_size must be at least 1, cost_updates at least 0");
  }
  if (o.checkpoint_every < 1) return absl::InvalidArgumentError("checkpoint_every must be >= 1");
  if (o.resume && o.checkpoint_path.empty()) {
    return absl::InvalidArgumentError("resume needs a checkpoint path");
  }
  return absl::OkStatus();
}

// What a checkpoint must have been written by: the same tasks and every option that changes
// the numbers.
std::string Fingerprint(const std::string& data_sha256, const TrainOptions& o) {
  const AutoShardAblation& a = o.ablation;
  return Sha256Hex(absl::StrCat(
      data_sha256, "|", o.seed, "|", o.total_steps, "|", o.batch_size, "|", o.unroll_length, "|",
      absl::StrFormat("%.17g|%.17g|%.17g|%.17g", o.learning_rate, o.entropy_cost, o.baseline_cost,
                      o.grad_norm_clipping),
      "|", o.cost_buffer_size, "|", o.cost_batch_size, "|", o.cost_updates, "|", a.dim, a.rows,
      a.pooling_factor, a.size, a.distribution, a.cost_model));
}

// A device drawn from softmax(logits) (torch.multinomial's role), in double.
int32_t SampleDevice(std::span<const float> logits, std::mt19937_64& rng) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> weights(logits.size());
  double total = 0.0;
  for (size_t d = 0; d < logits.size(); ++d) {
    weights[d] = std::exp(static_cast<double>(logits[d]) - top);
    total += weights[d];
  }
  const double u = Uniform01(rng) * total;
  double cumulative = 0.0;
  for (size_t d = 0; d < logits.size(); ++d) {
    cumulative += weights[d];
    if (u < cumulative) return static_cast<int32_t>(d);
  }
  return static_cast<int32_t>(logits.size() - 1);
}

// torch.nn.utils.clip_grad_norm_: scales `grad` by max_norm / (norm + 1e-6) when that is < 1.
void ClipGradNorm(std::span<float> grad, double max_norm) {
  double squares = 0.0;
  for (float g : grad) squares += static_cast<double>(g) * g;
  const double coefficient = max_norm / (std::sqrt(squares) + 1e-6);
  if (coefficient >= 1.0) return;
  const auto scale = static_cast<float>(coefficient);
  for (float& g : grad) g *= scale;
}

// LambdaLR(1 - min(epoch x T x B, total) / total) after `epoch` scheduler steps.
float DecayedLr(const TrainOptions& o, int64_t epoch) {
  const int64_t per_update = static_cast<int64_t>(o.unroll_length) * o.batch_size;
  const double done = static_cast<double>(std::min(epoch * per_update, o.total_steps));
  return static_cast<float>(o.learning_rate * (1.0 - done / static_cast<double>(o.total_steps)));
}

std::string RngState(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

}  // namespace

std::string TrainingTasksSha256(std::span<const Task> tasks) {
  std::string bytes;
  for (const Task& task : tasks) {
    const v1::Task proto = wire::TaskToProto(CanonicalTask(task));
    std::string encoded;
    {
      google::protobuf::io::StringOutputStream stream(&encoded);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      proto.SerializeToCodedStream(&coded);
    }
    absl::StrAppend(&bytes, encoded.size(), ":", encoded);
  }
  return Sha256Hex(bytes);
}

absl::StatusOr<double> PlacementReward(HardwareBackend& backend, const Task& task,
                                       std::span<const int32_t> device_of_table,
                                       std::span<const size_t> placement_order,
                                       std::vector<std::pair<int32_t, double>>* measured) {
  const int num_devices = task.topology.num_devices();
  std::vector<int64_t> bytes(num_devices, 0);
  for (size_t t = 0; t < task.tables.size(); ++t) {
    bytes[device_of_table[t]] =
        AddBytes(bytes[device_of_table[t]], TableMemoryBytes(task.tables[t], task.memory));
  }
  double worst_headroom = 1.0;
  bool feasible = true;
  for (int d = 0; d < num_devices; ++d) {
    const auto capacity = static_cast<double>(task.topology.memory_bytes[d]);
    if (bytes[d] > task.topology.memory_bytes[d]) feasible = false;
    if (capacity > 0.0) {
      worst_headroom =
          std::min(worst_headroom, (capacity - static_cast<double>(bytes[d])) / capacity);
    }
  }
  if (!feasible) return worst_headroom;
  std::vector<std::vector<Table>> shards(num_devices);
  for (size_t t : placement_order) shards[device_of_table[t]].push_back(task.tables[t]);
  double lowest = 0.0, highest = 0.0;
  for (int d = 0; d < num_devices; ++d) {
    double cost = 0.0;  // an empty device costs 0, as the reference's single_step
    if (!shards[d].empty()) {
      SHARDPLAN_ASSIGN_OR_RETURN(cost, backend.MeasureCompute(shards[d], task.batch_size));
      if (measured != nullptr) measured->emplace_back(d, cost);
    }
    lowest = d == 0 ? cost : std::min(lowest, cost);
    highest = d == 0 ? cost : std::max(highest, cost);
  }
  return highest > 0.0 ? lowest / highest : 0.0;
}

absl::StatusOr<TrainResult> TrainAutoShard(HardwareBackend& backend,
                                           std::span<const Task> input_tasks,
                                           const TrainOptions& options) {
  SHARDPLAN_RETURN_IF_ERROR(CheckOptions(options));
  if (input_tasks.empty()) return absl::InvalidArgumentError("no training tasks");
  // Trained as the server plans them, tables sorted by name: the data hash and the checkpoint's
  // fingerprint (of the canonical tasks) then describe exactly what was trained on, whatever
  // order the caller's tables came in.
  std::vector<Task> canonical;
  canonical.reserve(input_tasks.size());
  for (const Task& task : input_tasks) canonical.push_back(CanonicalTask(task));
  const std::span<const Task> tasks(canonical);
  const Clock::time_point started = Clock::now();

  TrainResult result;
  result.config.stats = ComputeAutoShardFeatureStats(tasks);
  result.config.ablation = options.ablation;
  result.data_sha256 = TrainingTasksSha256(tasks);
  std::vector<TrainingTask> training(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    TrainingTask& t = training[i];
    t.task = &tasks[i];
    SHARDPLAN_ASSIGN_OR_RETURN(t.units, TableWiseUnits(tasks[i], "autoshard"));
    const bool tables_only =
        t.units.size() == tasks[i].tables.size() &&
        std::none_of(t.units.begin(), t.units.end(),
                     [](const PlacementUnit& u) { return u.pinned_device.has_value(); });
    if (!tables_only || tasks[i].tables.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "training task ", i, ": the trainer places free tables one by one; this task has ",
          tasks[i].tables.empty() ? "no tables" : "pinned or co-located tables"));
    }
    t.all_units.resize(t.units.size());
    for (size_t u = 0; u < t.units.size(); ++u) t.all_units[u] = u;
    t.features = AutoShardTableFeatures(tasks[i], result.config);
  }

  const ParamLayout layout;
  const std::string fingerprint = Fingerprint(result.data_sha256, options);
  TrainerState state;
  std::mt19937_64 rng(options.seed);
  Adam adam(layout.total, AdamOptions{.lr = static_cast<float>(options.learning_rate)});
  if (options.resume) {
    SHARDPLAN_ASSIGN_OR_RETURN(state, ReadCheckpoint(options.checkpoint_path));
    if (state.fingerprint != fingerprint) {
      return absl::FailedPreconditionError(absl::StrCat(
          options.checkpoint_path,
          ": the checkpoint belongs to a run with other tasks or options; resume with the same "
          "ones"));
    }
    std::istringstream rng_state(state.rng);
    rng_state >> rng;
    if (rng_state.fail() || static_cast<int64_t>(state.params.size()) != layout.total ||
        !adam.Restore(state.adam_m, state.adam_v, state.adam_steps)) {
      return absl::FailedPreconditionError(
          absl::StrCat(options.checkpoint_path, ": parameters or optimiser state do not fit"));
    }
  } else {
    state.fingerprint = fingerprint;
    state.params = InitAutoShardParams(layout, rng);
    state.buffer.capacity = options.cost_buffer_size;
  }

  const int64_t per_update = static_cast<int64_t>(options.unroll_length) * options.batch_size;
  const int64_t total_updates = (options.total_steps + per_update - 1) / per_update;
  const LossWeights weights{.baseline_cost = options.baseline_cost,
                            .entropy_cost = options.entropy_cost};
  std::vector<float> grad(static_cast<size_t>(layout.total));
  TransposedParams transposed;
  LearnerScratch scratch;
  std::vector<const CostSample*> batch;
  const double wall_before = state.curve.empty() ? 0.0 : state.curve.back().wall_seconds;
  int64_t updates_here = 0;

  auto save = [&]() -> absl::Status {
    if (options.checkpoint_path.empty()) return absl::OkStatus();
    state.adam_m = adam.first_moment();
    state.adam_v = adam.second_moment();
    state.adam_steps = adam.steps();
    state.rng = RngState(rng);
    return WriteCheckpoint(options.checkpoint_path, state);
  };

  while (state.next_update < total_updates) {
    if (options.stop_after_updates >= 0 && updates_here >= options.stop_after_updates) break;
    const int64_t update = state.next_update;
    std::span<float> params(state.params);
    transposed.Update(layout, params);
    const Policy current = AutoShardPolicyFromParams(layout, params, result.config);
    SHARDPLAN_ASSIGN_OR_RETURN(const AutoShardNetwork network,
                               AutoShardNetwork::FromPolicy(current));

    // Whole episodes, sampled from the policy, until T x B steps.
    std::fill(grad.begin(), grad.end(), 0.0f);
    int64_t steps = 0, episodes = 0, feasible = 0;
    double reward_sum = 0.0;
    EpisodeLoss losses;
    while (steps < per_update) {
      const TrainingTask& t = training[UniformBelow(rng, training.size())];
      std::vector<int32_t> device_of_table(t.units.size(), 0);
      auto sample = [&](size_t, const PlacementUnit&,
                        std::span<const float> logits) -> absl::StatusOr<int32_t> {
        return SampleDevice(logits, rng);
      };
      SHARDPLAN_ASSIGN_OR_RETURN(const AutoShardEpisode episode,
                                 RunAutoShardEpisode(network, *t.task, t.units, t.all_units, sample,
                                                     nullptr, device_of_table));
      backend.BeginSample(state.episodes);
      std::vector<std::pair<int32_t, double>> measured;
      SHARDPLAN_ASSIGN_OR_RETURN(
          const double reward,
          PlacementReward(backend, *t.task, device_of_table, episode.order, &measured));
      // One cost sample per measured shard: its tables' features in placement order.
      for (const auto& [device, cost] : measured) {
        CostSample sample;
        for (size_t u : episode.order) {
          if (device_of_table[u] != device) continue;
          sample.features.insert(sample.features.end(), t.features.begin() + u * kAutoShardFeatures,
                                 t.features.begin() + (u + 1) * kAutoShardFeatures);
        }
        sample.cost = static_cast<float>(cost);
        state.buffer.Append(std::move(sample));
      }
      feasible += measured.empty() ? 0 : 1;
      const EpisodeLoss loss = AccumulateEpisodeGradient(layout, params, transposed, t.features,
                                                         t.task->topology.num_devices(), episode,
                                                         reward, weights, grad, scratch, nullptr);
      losses.pg += loss.pg;
      losses.baseline += loss.baseline;
      losses.entropy += loss.entropy;
      reward_sum += reward;
      steps += static_cast<int64_t>(episode.order.size());
      ++episodes;
      ++state.episodes;
    }
    ClipGradNorm(grad, options.grad_norm_clipping);
    adam.set_lr(DecayedLr(options, update));
    adam.Step(params, grad);

    // The cost head: after the scheduler's step, so at the next update's learning rate.
    double cost_loss = -1.0;
    if (!options.ablation.cost_model && state.buffer.size() > 0) {
      adam.set_lr(DecayedLr(options, update + 1));
      for (int i = 0; i < options.cost_updates; ++i) {
        transposed.Update(layout, params);
        batch.clear();
        for (int s = 0; s < options.cost_batch_size; ++s) {
          batch.push_back(&state.buffer.samples[UniformBelow(rng, state.buffer.samples.size())]);
        }
        std::fill(grad.begin(), grad.end(), 0.0f);
        cost_loss = AccumulateCostGradient(layout, params, transposed, batch, grad, scratch);
        ClipGradNorm(grad, options.grad_norm_clipping);
        adam.Step(params, grad);
      }
    }

    ++state.next_update;
    ++updates_here;
    CurvePoint point;
    point.update = state.next_update;
    point.steps = state.next_update * per_update;
    point.episodes = state.episodes;
    point.mean_reward = reward_sum / static_cast<double>(episodes);
    point.feasible_fraction = static_cast<double>(feasible) / static_cast<double>(episodes);
    point.cost_loss = cost_loss;
    point.pg_loss = losses.pg;
    point.baseline_loss = losses.baseline;
    point.entropy_loss = losses.entropy;
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    point.wall_seconds = wall_before + elapsed;
    state.curve.push_back(point);
    if (options.progress != nullptr) {
      *options.progress << absl::StrFormat(
          "autoshard: update %d/%d, steps %d, episodes %d (%.1f episodes/s), mean reward %.4f, "
          "feasible %.0f%%, cost loss %.4g\n",
          point.update, total_updates, point.steps, point.episodes,
          static_cast<double>(state.episodes) / std::max(point.wall_seconds, 1e-9),
          point.mean_reward, 100.0 * point.feasible_fraction, point.cost_loss);
      options.progress->flush();
    }
    if (state.next_update % options.checkpoint_every == 0 || state.next_update == total_updates) {
      SHARDPLAN_RETURN_IF_ERROR(save());
    }
  }
  SHARDPLAN_RETURN_IF_ERROR(save());

  result.params = state.params;
  result.policy = AutoShardPolicyFromParams(layout, state.params, result.config);
  result.curve = state.curve;
  result.episodes = state.episodes;
  result.updates = state.next_update;
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace shardplan::autoshard
