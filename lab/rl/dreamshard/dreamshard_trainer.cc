#include "lab/rl/dreamshard/dreamshard_trainer.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/atomic_file.h"
#include "base/seeded_rng.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "groundtruth/ground_truth.h"
#include "lab/rl/checkpoint_bytes.h"
#include "lab/rl/dreamshard/dreamshard_model.h"
#include "nn/adam.h"
#include "planner/algorithms/dreamshard/dreamshard_episode.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/table.h"

namespace shardplan::rl {
namespace {

constexpr char kCheckpointMagic[] = "shardplan-dreamshard-checkpoint-2\n";
constexpr char kAlgorithmName[] = "dreamshard";

// Everything a resumed run needs to continue exactly.
struct State {
  int next_iteration = 0;
  std::vector<float> params;
  std::vector<float> adam_m, adam_v;
  int64_t adam_steps = 0;
  std::string rng;  // std::mt19937_64's text state
  std::vector<OverallSample> overall;
  std::vector<KernelSample> kernel;
  std::vector<DreamShardIterationStats> curve;
  int64_t episodes = 0;
  int64_t updates = 0;
  double wall_seconds = 0.0;
};

std::string Encode(const std::string& fingerprint, const State& s) {
  CheckpointWriter w;
  w.bytes() = kCheckpointMagic;
  w.String(fingerprint);
  w.Pod<int32_t>(s.next_iteration);
  w.Vector(s.params);
  w.Vector(s.adam_m);
  w.Vector(s.adam_v);
  w.Pod(s.adam_steps);
  w.String(s.rng);
  w.Pod<uint64_t>(s.overall.size());
  for (const OverallSample& o : s.overall) {
    w.Pod<int32_t>(o.task);
    w.Pod<uint64_t>(o.shards.size());
    for (const ShardTables& shard : o.shards) w.Vector(shard);
    w.Pod(o.cost);
  }
  w.Pod<uint64_t>(s.kernel.size());
  for (const KernelSample& k : s.kernel) {
    w.Pod<int32_t>(k.task);
    w.Vector(k.tables);
    w.Pod(k.targets);
  }
  w.Pod<uint64_t>(s.curve.size());
  for (const DreamShardIterationStats& c : s.curve) {
    w.Pod<int32_t>(c.iteration);
    w.Pod(c.mean_measured_ms);
    w.Pod(c.mean_rl_reward);
    w.Pod(c.cost_loss);
    w.Pod(c.learning_rate);
    w.Pod(c.evaluation);
  }
  w.Pod(s.episodes);
  w.Pod(s.updates);
  w.Pod(s.wall_seconds);
  return std::move(w.bytes());
}

absl::StatusOr<State> Decode(const std::string& path, const std::string& bytes,
                             const std::string& fingerprint) {
  const auto corrupt = [&](const char* what) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint ", path, ": ", what, "; delete it or train without --resume"));
  };
  if (bytes.rfind(kCheckpointMagic, 0) != 0) return corrupt("not a DreamShard checkpoint");
  CheckpointReader r(std::string_view(bytes).substr(std::strlen(kCheckpointMagic)));
  State s;
  std::string found;
  if (!r.String(found)) return corrupt("truncated");
  if (found != fingerprint) {
    return corrupt("written for other training tasks or options");
  }
  int32_t next = 0;
  uint64_t n = 0;
  bool ok = r.Pod(next) && r.Vector(s.params) && r.Vector(s.adam_m) && r.Vector(s.adam_v) &&
            r.Pod(s.adam_steps) && r.String(s.rng) && r.Pod(n);
  s.next_iteration = next;
  for (uint64_t i = 0; ok && i < n; ++i) {
    OverallSample o;
    int32_t task = 0;
    uint64_t shards = 0;
    ok = r.Pod(task) && r.Pod(shards) && shards < (1u << 20);
    o.task = task;
    o.shards.resize(ok ? shards : 0);
    for (ShardTables& shard : o.shards) ok = ok && r.Vector(shard);
    ok = ok && r.Pod(o.cost);
    s.overall.push_back(std::move(o));
  }
  ok = ok && r.Pod(n);
  for (uint64_t i = 0; ok && i < n; ++i) {
    KernelSample k;
    int32_t task = 0;
    ok = r.Pod(task) && r.Vector(k.tables) && r.Pod(k.targets);
    k.task = task;
    s.kernel.push_back(std::move(k));
  }
  ok = ok && r.Pod(n);
  for (uint64_t i = 0; ok && i < n; ++i) {
    DreamShardIterationStats c;
    int32_t iteration = 0;
    ok = r.Pod(iteration) && r.Pod(c.mean_measured_ms) && r.Pod(c.mean_rl_reward) &&
         r.Pod(c.cost_loss) && r.Pod(c.learning_rate) && r.Pod(c.evaluation);
    c.iteration = iteration;
    s.curve.push_back(c);
  }
  ok = ok && r.Pod(s.episodes) && r.Pod(s.updates) && r.Pod(s.wall_seconds) && r.AtEnd();
  if (!ok) return corrupt("truncated or malformed");
  return s;
}

// What a checkpoint must match: the options that shape training and the tasks' features,
// memory and devices.
std::string Fingerprint(const DreamShardTrainOptions& o, std::span<const Task> tasks,
                        std::span<const std::vector<float>> features) {
  std::string text = absl::StrCat(
      o.num_iterations, ",", o.bench_steps, ",", o.bench_training_steps, ",", o.batch_size, ",",
      o.rl_num_batches, ",", o.rl_batch_size, ",",
      absl::StrFormat("%.17g,%.17g,", o.entropy_weight, o.learning_rate), o.seed, "\n");
  for (size_t t = 0; t < tasks.size(); ++t) {
    absl::StrAppend(&text, tasks[t].tables.size(), ":", tasks[t].batch_size, ":");
    for (int64_t m : tasks[t].topology.memory_bytes) absl::StrAppend(&text, m, ",");
    for (const Table& table : tasks[t].tables) absl::StrAppend(&text, table.name, ",");
    text.append(reinterpret_cast<const char*>(features[t].data()),
                features[t].size() * sizeof(float));
  }
  return Sha256Hex(text);
}

std::string RngText(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

// torch.multinomial(softmax(logits)) with one uniform draw.
size_t SampleLegal(const std::vector<float>& logits, std::mt19937_64& rng) {
  double max_logit = logits[0];
  for (float l : logits) max_logit = std::max(max_logit, static_cast<double>(l));
  std::vector<double> p(logits.size());
  double z = 0.0;
  for (size_t k = 0; k < logits.size(); ++k) z += p[k] = std::exp(logits[k] - max_logit);
  const double u = Uniform01(rng) * z;
  double acc = 0.0;
  for (size_t k = 0; k < p.size(); ++k) {
    acc += p[k];
    if (u < acc) return k;
  }
  return p.size() - 1;
}

struct Trainer {
  std::span<const Task> tasks;
  std::vector<std::vector<float>> features;
  std::vector<double> missing_bins;
  const BackendForTask* backend;
  const DreamShardTrainOptions* options;
  State state;
  std::mt19937_64 rng;
  DreamShardWorkspace ws;

  absl::StatusOr<DreamShardNet> Net() const {
    return DreamShardNet::FromPolicy(DreamShardPolicyFromParams(state.params, missing_bins));
  }

  // One sampled episode on task t: its RL record, and the episode for its plan.
  // A sampled episode can strand a table that fits no device any more (the reference would
  // crash there): such an episode is drawn again, up to kMaxRedraws times.
  absl::StatusOr<std::pair<RlEpisode, float>> Sample(int t, const DreamShardNet& net, Plan* plan) {
    constexpr int kMaxRedraws = 100;
    for (int attempt = 0;; ++attempt) {
      SHARDPLAN_ASSIGN_OR_RETURN(auto sampled, SampleOnce(t, net, plan));
      if (sampled.has_value()) return *std::move(sampled);
      if (attempt == kMaxRedraws) {
        return absl::FailedPreconditionError(
            absl::StrCat("training task ", t, ": ", kMaxRedraws + 1,
                         " sampled episodes in a row left a table that fits no device"));
      }
    }
  }

  absl::StatusOr<std::optional<std::pair<RlEpisode, float>>> SampleOnce(int t,
                                                                        const DreamShardNet& net,
                                                                        Plan* plan) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        DreamShardEpisode episode,
        DreamShardEpisode::Start(tasks[t], features[t], net, kAlgorithmName));
    RlEpisode record;
    while (!episode.done()) {
      if (episode.legal().empty()) return std::nullopt;
      RlStep step;
      step.legal = episode.legal();
      for (int32_t d : step.legal) {
        step.prefix.push_back(static_cast<uint32_t>(episode.shards()[d].size()));
      }
      step.action = static_cast<int>(SampleLegal(episode.legal_logits(), rng));
      episode.Place(static_cast<size_t>(step.action));
      record.steps.push_back(std::move(step));
    }
    record.shards = episode.shards();
    if (plan != nullptr) *plan = episode.ToPlan();
    return std::make_pair(std::move(record), episode.PredictedOverall());
  }

  // collect_data: bench_steps episodes measured on the hardware, into the buffers.
  absl::StatusOr<double> Collect() {
    SHARDPLAN_ASSIGN_OR_RETURN(const DreamShardNet net, Net());
    double total = 0.0;
    for (int e = 0; e < options->bench_steps; ++e) {
      const int t = static_cast<int>(UniformBelow(rng, tasks.size()));
      Plan plan;
      SHARDPLAN_ASSIGN_OR_RETURN(auto sampled, Sample(t, net, &plan));
      SHARDPLAN_ASSIGN_OR_RETURN(HardwareBackend* const hardware, (*backend)(tasks[t]));
      hardware->BeginSample(state.episodes);
      SHARDPLAN_ASSIGN_OR_RETURN(const HardwarePlanCost cost,
                                 ScorePlanOnHardware(tasks[t], plan, *hardware));
      ++state.episodes;
      total += cost.cost_ms;
      const std::vector<ShardTables>& shards = sampled.first.shards;
      state.overall.push_back(OverallSample{t, shards, static_cast<float>(cost.cost_ms)});
      for (size_t d = 0; d < shards.size(); ++d) {
        state.kernel.push_back(KernelSample{
            t,
            shards[d],
            {static_cast<float>(cost.compute_ms[d]), static_cast<float>(cost.backward_comm_ms[d]),
             static_cast<float>(cost.forward_comm_ms[d])}});
      }
    }
    return total / options->bench_steps;
  }

  // train_cost: bench_training_steps Adam steps on batches drawn with replacement.
  double TrainCost(Adam& adam) {
    std::vector<float> grad(state.params.size());
    std::vector<const OverallSample*> overall(options->batch_size);
    std::vector<const KernelSample*> kernel(options->batch_size);
    double total = 0.0;
    for (int step = 0; step < options->bench_training_steps; ++step) {
      for (auto& o : overall) o = &state.overall[UniformBelow(rng, state.overall.size())];
      for (auto& k : kernel) k = &state.kernel[UniformBelow(rng, state.kernel.size())];
      std::fill(grad.begin(), grad.end(), 0.0f);
      total += DreamShardCostLoss(state.params, features, overall, kernel, ws, grad);
      adam.Step(state.params, grad);
      ++state.updates;
    }
    return total / std::max(1, options->bench_training_steps);
  }

  // train_rl: rl_num_batches REINFORCE steps, each on rl_batch_size episodes of one task.
  absl::StatusOr<double> TrainRl(Adam& adam) {
    std::vector<float> grad(state.params.size());
    double total_reward = 0.0;
    for (int b = 0; b < options->rl_num_batches; ++b) {
      const int t = static_cast<int>(UniformBelow(rng, tasks.size()));
      SHARDPLAN_ASSIGN_OR_RETURN(const DreamShardNet net, Net());
      std::vector<RlEpisode> episodes;
      std::vector<double> rewards;  // reward_buf: every step gets its episode's reward
      for (int e = 0; e < options->rl_batch_size; ++e) {
        SHARDPLAN_ASSIGN_OR_RETURN(auto sampled, Sample(t, net, nullptr));
        ++state.episodes;
        const double reward = -static_cast<double>(sampled.second);
        total_reward += reward;
        rewards.insert(rewards.end(), sampled.first.steps.size(), reward);
        episodes.push_back(std::move(sampled.first));
      }
      // (r - mean) / (std + 1e-8), torch's unbiased std.
      double mean = 0.0, var = 0.0;
      for (double r : rewards) mean += r;
      mean /= std::max<size_t>(1, rewards.size());
      for (double r : rewards) var += (r - mean) * (r - mean);
      const double std =
          rewards.size() > 1 ? std::sqrt(var / static_cast<double>(rewards.size() - 1)) : 0.0;
      size_t at = 0;
      for (RlEpisode& episode : episodes) {
        for (RlStep& step : episode.steps) {
          step.reward = static_cast<float>((rewards[at++] - mean) / (std + 1e-8));
        }
      }
      std::fill(grad.begin(), grad.end(), 0.0f);
      DreamShardRlLoss(state.params, features[t], episodes, options->entropy_weight, ws, grad);
      adam.Step(state.params, grad);
      ++state.updates;
    }
    return total_reward / std::max(1, options->rl_num_batches * options->rl_batch_size);
  }
};

absl::Status CheckOptions(const DreamShardTrainOptions& o) {
  const auto positive = [](int v, const char* name) -> absl::Status {
    if (v < 1) return absl::InvalidArgumentError(absl::StrCat(name, " must be at least 1"));
    return absl::OkStatus();
  };
  SHARDPLAN_RETURN_IF_ERROR(positive(o.num_iterations, "num_iterations"));
  SHARDPLAN_RETURN_IF_ERROR(positive(o.bench_steps, "bench_steps"));
  SHARDPLAN_RETURN_IF_ERROR(positive(o.batch_size, "batch_size"));
  SHARDPLAN_RETURN_IF_ERROR(positive(o.rl_batch_size, "rl_batch_size"));
  if (o.bench_training_steps < 0 || o.rl_num_batches < 0) {
    return absl::InvalidArgumentError("bench_training_steps and rl_num_batches must be >= 0");
  }
  if (!(o.learning_rate > 0.0) || !(o.entropy_weight >= 0.0)) {
    return absl::InvalidArgumentError("learning_rate must be > 0 and entropy_weight >= 0");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<double> MeanAccessBins(std::span<const Task> tasks) {
  std::vector<double> mean(kNumAccessBins, 0.0);
  int64_t count = 0;
  for (const Task& task : tasks) {
    for (const Table& table : task.tables) {
      if (table.access_bins.size() != static_cast<size_t>(kNumAccessBins)) continue;
      for (int j = 0; j < kNumAccessBins; ++j) mean[j] += table.access_bins[j];
      ++count;
    }
  }
  for (double& m : mean) m = count > 0 ? m / static_cast<double>(count) : 1.0 / kNumAccessBins;
  return mean;
}

absl::StatusOr<DreamShardTrainResult> TrainDreamShard(std::span<const Task> tasks,
                                                      HardwareBackend& backend,
                                                      const DreamShardTrainOptions& options) {
  const BackendForTask one = [&backend](const Task&) -> absl::StatusOr<HardwareBackend*> {
    return &backend;
  };
  return TrainDreamShard(tasks, one, options);
}

absl::StatusOr<DreamShardTrainResult> TrainDreamShard(std::span<const Task> input_tasks,
                                                      const BackendForTask& backend,
                                                      const DreamShardTrainOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (input_tasks.empty()) return absl::InvalidArgumentError("no training tasks");
  SHARDPLAN_RETURN_IF_ERROR(CheckOptions(options));
  std::vector<Task> tasks;
  for (const Task& task : input_tasks) tasks.push_back(CanonicalTask(task));
  Trainer trainer;
  trainer.tasks = tasks;
  trainer.backend = &backend;
  trainer.options = &options;
  trainer.missing_bins = MeanAccessBins(tasks);
  for (const Task& task : tasks) {
    trainer.features.push_back(DreamShardFeatures(task, trainer.missing_bins));
  }
  const std::string fingerprint = Fingerprint(options, tasks, trainer.features);
  State& state = trainer.state;
  const int64_t num_params = Layout().num_params();
  Adam adam(num_params, AdamOptions{.lr = static_cast<float>(options.learning_rate)});
  const bool resuming =
      options.resume && !options.checkpoint.empty() && std::filesystem::exists(options.checkpoint);
  if (resuming) {
    std::ifstream in(options.checkpoint, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    SHARDPLAN_ASSIGN_OR_RETURN(state, Decode(options.checkpoint, bytes.str(), fingerprint));
    if (static_cast<int64_t>(state.params.size()) != num_params ||
        !adam.Restore(state.adam_m, state.adam_v, state.adam_steps)) {
      return absl::FailedPreconditionError(
          absl::StrCat("checkpoint ", options.checkpoint, ": parameters of another size"));
    }
    std::istringstream rng_text(state.rng);
    rng_text >> trainer.rng;
    if (options.progress != nullptr) {
      *options.progress << "resuming " << options.checkpoint << " at iteration "
                        << state.next_iteration << "/" << options.num_iterations << "\n";
    }
  } else {
    state.params.assign(static_cast<size_t>(num_params), 0.0f);
    std::mt19937_64 init = SampleRng(options.seed, 0);
    InitDreamShardParams(init, state.params);
    trainer.rng = SampleRng(options.seed, 1);
  }
  const double wall_before = state.wall_seconds;
  double evaluation_seconds = 0.0;

  DreamShardTrainResult result;
  for (int it = state.next_iteration; it < options.num_iterations; ++it) {
    if (options.stop != nullptr && options.stop->load()) {
      result.interrupted = true;
      break;
    }
    // LambdaLR(1 - epoch / num_iterations), stepped after every iteration.
    const double lr = options.learning_rate *
                      (1.0 - static_cast<double>(it) / static_cast<double>(options.num_iterations));
    adam.set_lr(static_cast<float>(lr));
    DreamShardIterationStats stats;
    stats.iteration = it;
    stats.learning_rate = lr;
    SHARDPLAN_ASSIGN_OR_RETURN(stats.mean_measured_ms, trainer.Collect());
    stats.cost_loss = trainer.TrainCost(adam);
    SHARDPLAN_ASSIGN_OR_RETURN(stats.mean_rl_reward, trainer.TrainRl(adam));
    if (options.evaluate) {  // not training time: left out of wall_seconds
      const auto evaluation_start = std::chrono::steady_clock::now();
      const Policy policy = DreamShardPolicyFromParams(state.params, trainer.missing_bins);
      SHARDPLAN_ASSIGN_OR_RETURN(stats.evaluation, options.evaluate(policy));
      evaluation_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - evaluation_start)
              .count();
    }
    state.curve.push_back(stats);
    state.next_iteration = it + 1;
    state.wall_seconds =
        wall_before +
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
        evaluation_seconds;
    if (options.progress != nullptr) {
      *options.progress << absl::StrFormat(
          "iteration %d/%d: mean measured latency %.4f ms, RL reward %.4f, cost loss %.4g, lr "
          "%.3g, %.1f s%s\n",
          it + 1, options.num_iterations, stats.mean_measured_ms, stats.mean_rl_reward,
          stats.cost_loss, lr, state.wall_seconds,
          options.evaluate ? absl::StrFormat(", evaluation %.4f", stats.evaluation) : "");
      options.progress->flush();
    }
    if (!options.checkpoint.empty()) {
      state.adam_m = adam.first_moment();
      state.adam_v = adam.second_moment();
      state.adam_steps = adam.steps();
      state.rng = RngText(trainer.rng);
      SHARDPLAN_RETURN_IF_ERROR(
          WriteFileAtomically(options.checkpoint, Encode(fingerprint, state)));
    }
  }
  if (state.next_iteration < options.num_iterations) result.interrupted = true;
  state.wall_seconds =
      wall_before +
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
      evaluation_seconds;
  result.params = state.params;
  result.policy = DreamShardPolicyFromParams(state.params, trainer.missing_bins);
  {
    SHARDPLAN_ASSIGN_OR_RETURN(HardwareBackend* const hardware, backend(tasks.front()));
    result.policy.hardware_profile = hardware->hardware_profile();
  }
  result.curve = state.curve;
  result.episodes = state.episodes;
  result.updates = state.updates;
  result.wall_seconds = state.wall_seconds;
  return result;
}

}  // namespace shardplan::rl
