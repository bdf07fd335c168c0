// shardplan-offline policy train-dreamshard: trains a DreamShard policy on the simulator and
// writes a policy bundle (docs/dreamshard.md).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/data/generators.h"
#include "lab/rl/dreamshard/dreamshard_trainer.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"
#include "planner/algorithms/dreamshard/dreamshard_planner.h"
#include "planner/algorithms/greedy/greedy_planner.h"
#include "planner/framework/plan_task.h"
#include "planner/framework/stop_signal.h"
#include "wire/task_proto.h"

namespace shardplan::offline {
namespace {

absl::StatusOr<std::vector<int32_t>> DreamShardIntList(const OptionValues& args, const char* name) {
  std::vector<int32_t> values;
  for (absl::string_view part : absl::StrSplit(args.Get(name), ',', absl::SkipEmpty())) {
    int32_t v = 0;
    if (!absl::SimpleAtoi(part, &v) || v < 1) {
      return UsageError(absl::StrCat("--", name,
                                     " must be a comma-separated list of positive "
                                     "integers, got \"",
                                     args.Get(name), "\""));
    }
    values.push_back(v);
  }
  if (values.empty()) return UsageError(absl::StrCat("--", name, " is empty"));
  return values;
}

// Tasks drawn from (seed, index) by GenerateTask (the reference's gen_tasks), index from
// `*next_index` on: index i has devices[i % |devices|] devices and max dim
// max_dims[(i / |devices|) % |max_dims|]. An index with a table larger than a device is skipped
// (no placement holds it: the reference would crash on it); *next_index ends past the last used.
absl::StatusOr<std::vector<Task>> MakeTasks(const TablePool& pool, const TaskGenOptions& base,
                                            const std::vector<int32_t>& devices,
                                            const std::vector<int32_t>& max_dims, uint64_t seed,
                                            int count, int* next_index, int* skipped) {
  std::vector<Task> tasks;
  for (int i = *next_index; static_cast<int>(tasks.size()) < count; ++i) {
    TaskGenOptions options = base;
    options.num_devices = devices[i % devices.size()];
    options.max_dim = max_dims[(i / devices.size()) % max_dims.size()];
    SHARDPLAN_ASSIGN_OR_RETURN(Task task,
                               GenerateTask(pool, options, seed, static_cast<uint64_t>(i)));
    *next_index = i + 1;
    bool fits = true;
    for (const Table& table : task.tables) {
      fits = fits && Fp32TableBytes(table.rows, table.dim) <= options.device_memory_bytes;
    }
    if (!fits) {
      ++*skipped;
      continue;
    }
    tasks.push_back(CanonicalTask(std::move(task)));
  }
  return tasks;
}

// SHA-256 of the tasks' canonical encodings (deterministic shardplan.v1.Task bytes, each
// length-prefixed), the manifest's data_sha256.
std::string TasksSha256(const std::vector<Task>& tasks) {
  std::string all;
  for (const Task& task : tasks) {
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      wire::TaskToProto(CanonicalTask(task)).SerializeToCodedStream(&coded);
    }
    absl::StrAppend(&all, bytes.size(), ":", bytes);
  }
  return Sha256Hex(all);
}

// The mean measured cost of `planner`'s plans of `tasks` (ScorePlanOnHardware) over the tasks
// it plans, and how many it finds infeasible (an argmax placement can strand a large table).
struct MeanCost {
  double mean_ms = 0.0;
  int infeasible = 0;
};
absl::StatusOr<MeanCost> MeanPlanCost(const std::vector<Task>& tasks, const Algorithm& planner,
                                      const Policy* policy, const rl::BackendForTask& backend) {
  StopSignal stop;
  MeanCost result;
  double total = 0.0;
  for (const Task& task : tasks) {
    PlanningContext context;
    context.policy = policy;
    context.stop = &stop;
    const absl::StatusOr<Plan> plan = planner.Run(task, context);
    if (plan.status().code() == absl::StatusCode::kFailedPrecondition) {
      ++result.infeasible;
      continue;
    }
    SHARDPLAN_RETURN_IF_ERROR(plan.status());
    SHARDPLAN_ASSIGN_OR_RETURN(HardwareBackend* const hardware, backend(task));
    SHARDPLAN_ASSIGN_OR_RETURN(const HardwarePlanCost cost,
                               ScorePlanOnHardware(task, *plan, *hardware));
    total += cost.cost_ms;
  }
  const int planned = static_cast<int>(tasks.size()) - result.infeasible;
  result.mean_ms = planned > 0 ? total / planned : 0.0;
  return result;
}

absl::Status RunTrainDreamShard(const OptionValues& args) {
  const std::string profile = args.Get("profile");
  if (profile != "rtx2080ti" && profile != "h100-sxm") {
    return UsageError("--profile must be rtx2080ti or h100-sxm");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int32_t> devices,
                             DreamShardIntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int32_t> max_dims,
                             DreamShardIntList(args, "max-dims"));
  for (int32_t d : max_dims) {
    if (DimGrid(d).empty()) return UsageError("--max-dims must be multiples of 4");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t count, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t validation, args.GetInt("validation-tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t task_seed, args.GetUint("task-seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t memory_gib, args.GetInt("device-memory-gib"));
  if (count < 1 || count > 100000) return UsageError("--tasks must be in [1, 100000]");
  if (validation < 0 || validation > 100000) {
    return UsageError("--validation-tasks must be in [0, 100000]");
  }
  if (memory_gib < 1) return UsageError("--device-memory-gib must be at least 1");
  TaskGenOptions gen;
  gen.device_memory_bytes = memory_gib << 30;
  if (args.Has("tables")) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int32_t> range, DreamShardIntList(args, "tables"));
    if (range.size() != 2 || range[0] > range[1]) {
      return UsageError("--tables must be MIN,MAX with MIN <= MAX");
    }
    gen.min_tables = range[0];
    gen.max_tables = range[1];
  }
  rl::DreamShardTrainOptions options;
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t iterations, args.GetInt("iterations"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t bench_steps, args.GetInt("bench-steps"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t cost_steps, args.GetInt("cost-steps"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, args.GetInt("batch-size"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t rl_batches, args.GetInt("rl-batches"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t rl_batch_size, args.GetInt("rl-batch-size"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.entropy_weight, args.GetDouble("entropy-weight"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.learning_rate, args.GetDouble("lr"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.seed, args.GetUint("seed"));
  for (const auto& [value, name] :
       std::vector<std::pair<int64_t, const char*>>{{iterations, "iterations"},
                                                    {bench_steps, "bench-steps"},
                                                    {batch_size, "batch-size"},
                                                    {rl_batch_size, "rl-batch-size"}}) {
    if (value < 1 || value > 1000000) {
      return UsageError(absl::StrCat("--", name, " must be in [1, 1000000]"));
    }
  }
  if (cost_steps < 0 || cost_steps > 1000000 || rl_batches < 0 || rl_batches > 1000000) {
    return UsageError("--cost-steps and --rl-batches must be in [0, 1000000]");
  }
  options.num_iterations = static_cast<int>(iterations);
  options.bench_steps = static_cast<int>(bench_steps);
  options.bench_training_steps = static_cast<int>(cost_steps);
  options.batch_size = static_cast<int>(batch_size);
  options.rl_num_batches = static_cast<int>(rl_batches);
  options.rl_batch_size = static_cast<int>(rl_batch_size);
  const std::string name = args.Get("name", absl::StrCat("dreamshard-sim-", profile));
  const std::string version = args.Get("version");
  options.checkpoint = args.Get("checkpoint", absl::StrCat(name, "@", version, ".checkpoint"));
  options.resume = args.Has("resume");
  options.progress = &std::cerr;
  options.stop = InstallStopOnSignal();

  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));
  int next_index = 0, skipped = 0;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<Task> tasks,
                             MakeTasks(pool.pool, gen, devices, max_dims, task_seed,
                                       static_cast<int>(count), &next_index, &skipped));
  const int train_end = next_index;
  std::map<int, std::unique_ptr<HardwareBackend>> backends;
  for (int32_t d : devices) {
    SHARDPLAN_ASSIGN_OR_RETURN(backends[d], MakeSimBackend(profile, d, SimOptions{}));
  }
  const rl::BackendForTask backend =
      [&backends](const Task& task) -> absl::StatusOr<HardwareBackend*> {
    const auto it = backends.find(task.topology.num_devices());
    if (it == backends.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no simulator for ", task.topology.num_devices(), " devices"));
    }
    return it->second.get();
  };
  std::vector<Task> held_out;
  const DreamShardPlanner dreamshard;
  if (validation > 0) {
    // Held out: drawn from the next seed, so the same whatever --tasks is.
    int held_next = 0, held_skipped = 0;
    SHARDPLAN_ASSIGN_OR_RETURN(held_out,
                               MakeTasks(pool.pool, gen, devices, max_dims, task_seed + 1,
                                         static_cast<int>(validation), &held_next, &held_skipped));
    // The held-out argmax cost after every iteration: the curve's steady signal (the sampled
    // plans' latency swings with the tasks each iteration draws).
    options.evaluate = [&](const Policy& trained) -> absl::StatusOr<double> {
      SHARDPLAN_ASSIGN_OR_RETURN(const MeanCost cost,
                                 MeanPlanCost(held_out, dreamshard, &trained, backend));
      return cost.mean_ms;
    };
  }
  std::cerr << "training " << name << "@" << version << " on " << tasks.size() << " tasks (seed "
            << task_seed << "), sim-" << profile << "\n";
  SHARDPLAN_ASSIGN_OR_RETURN(rl::DreamShardTrainResult result,
                             rl::TrainDreamShard(tasks, backend, options));
  if (result.interrupted) {
    return absl::CancelledError(
        absl::StrCat("interrupted; rerun with --resume to continue from ", options.checkpoint));
  }
  Policy& policy = result.policy;
  policy.name = name;
  policy.version = version;

  std::string rewards;
  std::string csv =
      "iteration,episodes,mean_measured_ms,mean_rl_reward,cost_loss,learning_rate,"
      "heldout_argmax_ms\n";
  PolicyBundleInfo info;
  const int64_t per_iteration =
      options.bench_steps + options.rl_num_batches * options.rl_batch_size;
  for (const rl::DreamShardIterationStats& s : result.curve) {
    const int64_t episodes = (s.iteration + 1) * per_iteration;
    info.training.curve.push_back(PolicyCurvePoint{episodes, s.mean_measured_ms});
    absl::StrAppend(&rewards, rewards.empty() ? "" : ",",
                    absl::StrFormat("%.6g", s.mean_rl_reward));
    absl::StrAppendFormat(&csv, "%d,%d,%.9g,%.9g,%.9g,%.9g,%s\n", s.iteration + 1, episodes,
                          s.mean_measured_ms, s.mean_rl_reward, s.cost_loss, s.learning_rate,
                          validation > 0 ? absl::StrFormat("%.9g", s.evaluation) : "");
  }
  info.description = args.Get(
      "description", absl::StrCat("DreamShard policy trained on the sim-", profile, " simulator"));
  info.seed = options.seed;
  info.hyperparameters = {
      {"num_iterations", absl::StrCat(options.num_iterations)},
      {"bench_steps", absl::StrCat(options.bench_steps)},
      {"bench_training_steps", absl::StrCat(options.bench_training_steps)},
      {"batch_size", absl::StrCat(options.batch_size)},
      {"rl_num_batches", absl::StrCat(options.rl_num_batches)},
      {"rl_batch_size", absl::StrCat(options.rl_batch_size)},
      {"entropy_weight", absl::StrFormat("%.6g", options.entropy_weight)},
      {"learning_rate", absl::StrFormat("%.6g", options.learning_rate)},
      {"lr_schedule", "1 - iteration / num_iterations"},
      {"rl_reward_per_iteration", rewards},
  };
  info.training.data = absl::StrCat(
      count, " tasks of GenerateTask (", args.Get("pool"), ", seed ", task_seed, ", indices 0..",
      train_end - 1, " less ", skipped, " with a table larger than a device), devices ",
      args.Get("devices"), ", max dims ", args.Get("max-dims"), ", ", memory_gib, " GiB per device",
      args.Has("tables") ? absl::StrCat(", tables ", args.Get("tables")) : "");
  info.training.data_sha256 = TasksSha256(tasks);
  info.training.tasks = count;
  info.training.episodes = result.episodes;
  info.training.updates = result.updates;
  info.training.wall_seconds = result.wall_seconds;
  info.training.curve_metric = absl::StrCat(
      "mean measured max latency of the iteration's sampled plans (ms, sim-", profile, ")");

  if (validation > 0) {
    const GreedyPlanner size_greedy(GreedyWeight::kSize);
    SHARDPLAN_ASSIGN_OR_RETURN(const MeanCost train_cost,
                               MeanPlanCost(tasks, dreamshard, &policy, backend));
    SHARDPLAN_ASSIGN_OR_RETURN(const MeanCost held_cost,
                               MeanPlanCost(held_out, dreamshard, &policy, backend));
    SHARDPLAN_ASSIGN_OR_RETURN(const MeanCost greedy_cost,
                               MeanPlanCost(held_out, size_greedy, nullptr, backend));
    std::cerr << absl::StrFormat(
        "argmax plans: mean measured cost %.4f ms on the training tasks (%d infeasible), %.4f ms "
        "on %d held-out tasks (seed %d, %d infeasible); size_greedy %.4f ms (%d infeasible)\n",
        train_cost.mean_ms, train_cost.infeasible, held_cost.mean_ms, validation, task_seed + 1,
        held_cost.infeasible, greedy_cost.mean_ms, greedy_cost.infeasible);
    info.hyperparameters["validation_mean_cost_ms"] = absl::StrFormat("%.6g", held_cost.mean_ms);
    info.hyperparameters["validation_infeasible"] = absl::StrCat(held_cost.infeasible);
    info.hyperparameters["training_mean_cost_ms"] = absl::StrFormat("%.6g", train_cost.mean_ms);
  }
  SHARDPLAN_RETURN_IF_ERROR(WritePolicyBundle(args.Get("models-dir"), info, policy));
  const std::string csv_path =
      args.Get("curve-csv", absl::StrCat(name, "@", version, ".curve.csv"));
  SHARDPLAN_RETURN_IF_ERROR(WriteTextFile(csv_path, csv));
  // The run is complete and in the bundle: its checkpoint has served.
  std::error_code removed;
  std::filesystem::remove(options.checkpoint, removed);
  std::cout << "policy: " << args.Get("models-dir") << "/" << name << "/" << version << " ("
            << result.episodes << " episodes, " << result.updates << " updates, "
            << absl::StrFormat("%.1f", result.wall_seconds) << " s); curve: " << csv_path << "\n";
  return absl::OkStatus();
}

}  // namespace

Command PolicyTrainDreamShardCommand() {
  return Command{
      .group = "policy",
      .name = "train-dreamshard",
      .summary = "Train a DreamShard policy on the simulator and write a policy bundle",
      .description =
          "The reference's training loop (docs/dreamshard.md): per iteration, episodes sampled\n"
          "from the policy are measured on the simulator, the cost model is fitted to them,\n"
          "then the policy is trained with REINFORCE on the cost model's predictions. Tasks\n"
          "come from GenerateTask (the reference's gen_tasks); task i has the i-th device\n"
          "count and max dim of the lists, cycled. A checkpoint after every iteration lets\n"
          "--resume continue an interrupted run bit-identically. The same flags give the same\n"
          "weights.\n",
      .flags =
          {
              {"profile", "rtx2080ti|h100-sxm", "the simulator profile", "rtx2080ti"},
              {"pool", "FILE", "table pool", kDefaultPool},
              {"tasks", "N", "training tasks", "50"},
              {"devices", "N[,N]", "device counts of the tasks, cycled", "4,8"},
              {"max-dims", "D[,D]", "max dims of the tasks, cycled", "4,8,16,32,64,128"},
              {"tables", "MIN,MAX", "tables per task (default: the reference's range)", ""},
              {"device-memory-gib", "G", "memory per device", "4"},
              {"task-seed", "S", "seed of the tasks (bench/reproduce_table1 uses 0)", "2000"},
              {"validation-tasks", "N",
               "after training, report the argmax plans' measured cost on N held-out tasks "
               "(drawn from --task-seed + 1)",
               "0"},
              {"iterations", "N", "training iterations (num_iterations)", "10"},
              {"bench-steps", "N", "measured episodes per iteration", "10"},
              {"cost-steps", "N", "cost-model steps per iteration", "300"},
              {"batch-size", "B", "cost-model batch", "64"},
              {"rl-batches", "N", "REINFORCE steps per iteration", "10"},
              {"rl-batch-size", "N", "episodes per REINFORCE step", "10"},
              {"entropy-weight", "W", "entropy regulariser weight", "0.001"},
              {"lr", "LR", "Adam learning rate (decayed linearly to 0)", "0.0005"},
              {"seed", "S", "initial weights and every draw of training", "0"},
              {"checkpoint", "FILE",
               "checkpoint file, removed once the bundle is written (default "
               "NAME@VERSION.checkpoint)",
               ""},
              {"resume", "", "continue the checkpoint's run", ""},
              {"models-dir", "DIR", "where policy bundles live", "models"},
              {"name", "NAME", "policy name (default dreamshard-sim-PROFILE)", ""},
              {"version", "VERSION", "policy version", "1"},
              {"description", "TEXT", "one line for the manifest", ""},
              {"curve-csv", "FILE", "training curve (default NAME@VERSION.curve.csv)", ""},
          },
      .run = RunTrainDreamShard,
  };
}

}  // namespace shardplan::offline
