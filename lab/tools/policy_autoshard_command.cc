// shardplan-offline policy train-autoshard: trains an AutoShard policy on the simulator and
// writes a policy bundle (docs/autoshard.md).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/data/generators.h"
#include "lab/rl/autoshard/autoshard_trainer.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"
#include "planner/domain/memory.h"

namespace shardplan::offline {
namespace {

constexpr size_t kMaxCurvePoints = 200;

absl::StatusOr<std::vector<int32_t>> IntList(const OptionValues& args, const std::string& name) {
  std::vector<int32_t> values;
  for (absl::string_view part : absl::StrSplit(args.Get(name), ',', absl::SkipEmpty())) {
    int32_t value = 0;
    if (!absl::SimpleAtoi(part, &value)) {
      return UsageError(absl::StrCat("--", name, ": \"", part, "\" is not an integer"));
    }
    values.push_back(value);
  }
  if (values.empty()) return UsageError(absl::StrCat("--", name, " lists nothing"));
  return values;
}

struct TaskSet {
  std::vector<Task> tasks;
  std::string description;
};

// Draw i: devices[i mod |devices|], max dim max_dims[(i / |devices|) mod |max_dims|], by
// GenerateTask(pool, ..., seed, i): every combination about equally often, each reproducible.
// Draws that no table-wise plan can fit are skipped.
absl::StatusOr<TaskSet> TrainingTasks(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t count, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("task-seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int32_t> devices, IntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int32_t> max_dims, IntList(args, "max-dims"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double memory_gib, args.GetDouble("device-memory-gib"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t min_tables, args.GetInt("min-tables"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_tables, args.GetInt("max-tables"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string dtype, args.GetOneOf("dtype", {"fp32", "fp16"}));
  if (count < 1 || count > 100000) return UsageError("--tasks must be in [1, 100000]");
  for (int32_t d : devices) {
    if (d < 1 || d > 1024) return UsageError("--devices: each must be in [1, 1024]");
  }
  for (int32_t m : max_dims) {
    if (m < 4 || m > 4096 || m % 4 != 0) {
      return UsageError("--max-dims: each must be a multiple of 4 in [4, 4096]");
    }
  }
  if (!(memory_gib > 0.0) || memory_gib > 1e6) {
    return UsageError("--device-memory-gib must be in (0, 1e6]");
  }
  if (min_tables < 0 || max_tables < 0 || (max_tables > 0 && min_tables > max_tables)) {
    return UsageError("--min-tables and --max-tables: 0 (the default range) or min <= max");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));
  TaskSet set;
  int64_t skipped = 0;
  for (int64_t i = 0; static_cast<int64_t>(set.tasks.size()) < count; ++i) {
    TaskGenOptions options;
    options.num_devices = devices[i % devices.size()];
    options.max_dim = max_dims[(i / devices.size()) % max_dims.size()];
    options.device_memory_bytes = static_cast<int64_t>(memory_gib * 1024.0 * 1024.0 * 1024.0);
    options.min_tables = static_cast<int32_t>(min_tables);
    options.max_tables = static_cast<int32_t>(max_tables);
    SHARDPLAN_ASSIGN_OR_RETURN(Task task,
                               GenerateTask(pool.pool, options, seed, static_cast<uint64_t>(i)));
    if (dtype == "fp16") {
      for (Table& table : task.tables) table.element_type = ElementType::kFp16;
    }
    // A table larger than a device leaves no table-wise plan: every episode would end over the
    // memory (the reference's tasks all fit). Such draws are skipped, and counted.
    const bool fits = std::all_of(task.tables.begin(), task.tables.end(), [&](const Table& t) {
      return TableMemoryBytes(t, task.memory) <= options.device_memory_bytes;
    });
    if (!fits) {
      if (++skipped > 100 * count) return UsageError("almost no drawn task fits its devices");
      continue;
    }
    set.tasks.push_back(std::move(task));
  }
  set.description = absl::StrFormat(
      "%d tasks of GenerateTask (lab/data/generators.h) on pool %s (SHA-256 %s), seed %d: draw i "
      "has devices [%s][i mod %d] of %g GiB and max dim [%s][(i / %d) mod %d], tables %s, %s; "
      "%d draws with a table larger than a device skipped",
      count, pool.path, pool.sha256, seed, absl::StrJoin(devices, ","), devices.size(), memory_gib,
      absl::StrJoin(max_dims, ","), devices.size(), max_dims.size(),
      min_tables == 0 && max_tables == 0 ? std::string("in the reference's range")
                                         : absl::StrCat(min_tables, "..", max_tables),
      dtype, skipped);
  return set;
}

absl::StatusOr<AutoShardAblation> Ablation(const OptionValues& args) {
  AutoShardAblation ablation;
  ablation.cost_model = args.Has("no-cost-model");
  for (const std::string& group : args.GetAll("drop-feature")) {
    if (group == "pooling_factor") {
      ablation.pooling_factor = true;
    } else if (group == "distribution") {
      ablation.distribution = true;
    } else if (group == "dim") {
      ablation.dim = true;
    } else if (group == "rows") {
      ablation.rows = true;
    } else if (group == "size") {
      ablation.size = true;
    } else {
      return UsageError(absl::StrCat("--drop-feature: \"", group,
                                     "\" is not pooling_factor, distribution, dim, rows or size"));
    }
  }
  return ablation;
}

// At most kMaxCurvePoints points, each the episode-weighted mean reward of consecutive updates.
std::vector<PolicyCurvePoint> CurveSummary(const std::vector<autoshard::CurvePoint>& curve) {
  std::vector<PolicyCurvePoint> points;
  const size_t per_point = (curve.size() + kMaxCurvePoints - 1) / kMaxCurvePoints;
  int64_t previous_episodes = 0;
  for (size_t begin = 0; begin < curve.size(); begin += per_point) {
    const size_t end = std::min(curve.size(), begin + per_point);
    double weighted = 0.0;
    int64_t episodes_before = previous_episodes;
    for (size_t k = begin; k < end; ++k) {
      const int64_t episodes = curve[k].episodes - episodes_before;
      weighted += curve[k].mean_reward * static_cast<double>(episodes);
      episodes_before = curve[k].episodes;
    }
    const int64_t span = curve[end - 1].episodes - previous_episodes;
    points.push_back({curve[end - 1].episodes, span > 0 ? weighted / span : 0.0});
    previous_episodes = curve[end - 1].episodes;
  }
  return points;
}

std::string CurveCsv(const std::vector<autoshard::CurvePoint>& curve) {
  std::string csv =
      "update,steps,episodes,mean_reward,feasible_fraction,cost_loss,pg_loss,baseline_loss,"
      "entropy_loss,wall_seconds\n";
  for (const autoshard::CurvePoint& p : curve) {
    absl::StrAppendFormat(&csv, "%d,%d,%d,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%.3f\n", p.update, p.steps,
                          p.episodes, p.mean_reward, p.feasible_fraction, p.cost_loss, p.pg_loss,
                          p.baseline_loss, p.entropy_loss, p.wall_seconds);
  }
  return csv;
}

absl::Status RunTrainAutoShard(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string profile,
                             args.GetOneOf("profile", {"rtx2080ti", "h100-sxm"}));
  autoshard::TrainOptions options;
  SHARDPLAN_ASSIGN_OR_RETURN(options.seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.total_steps, args.GetInt("total-steps"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t every, args.GetInt("checkpoint-every"));
  if (options.total_steps < 1) return UsageError("--total-steps must be at least 1");
  if (every < 1 || every > 1000000) return UsageError("--checkpoint-every must be in [1, 1e6]");
  options.checkpoint_every = static_cast<int>(every);
  SHARDPLAN_ASSIGN_OR_RETURN(options.ablation, Ablation(args));
  const std::string name =
      args.Get("name").empty() ? absl::StrCat("autoshard-sim-", profile) : args.Get("name");
  const std::string version = args.Get("version");
  options.checkpoint_path = args.Get("checkpoint").empty()
                                ? absl::StrCat(name, "-", version, ".checkpoint")
                                : args.Get("checkpoint");
  options.resume = args.Has("resume");
  if (!options.resume && std::filesystem::exists(options.checkpoint_path)) {
    return UsageError(absl::StrCat(options.checkpoint_path,
                                   " exists: --resume continues it; remove it to start over"));
  }
  options.progress = &std::cerr;
  SHARDPLAN_ASSIGN_OR_RETURN(const TaskSet set, TrainingTasks(args));
  const int max_devices =
      std::max_element(set.tasks.begin(), set.tasks.end(), [](const Task& a, const Task& b) {
        return a.topology.num_devices() < b.topology.num_devices();
      })->topology.num_devices();
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend,
                             MakeSimBackend(profile, max_devices));
  std::cerr << "autoshard: training " << name << "@" << version << " on " << set.tasks.size()
            << " tasks, sim " << profile << ", " << options.total_steps << " steps, seed "
            << options.seed << "\n";
  SHARDPLAN_ASSIGN_OR_RETURN(autoshard::TrainResult result,
                             autoshard::TrainAutoShard(*backend, set.tasks, options));

  const std::string csv_path = absl::StrCat(options.checkpoint_path, ".curve.csv");
  SHARDPLAN_RETURN_IF_ERROR(WriteTextFile(csv_path, CurveCsv(result.curve)));
  Policy policy = result.policy;
  policy.name = name;
  policy.version = version;
  policy.hardware_profile = absl::StrCat("sim-", profile);
  PolicyBundleInfo info;
  info.description = args.Get("description").empty()
                         ? absl::StrCat("AutoShard policy trained on the simulator (", profile,
                                        "): docs/autoshard.md")
                         : args.Get("description");
  info.seed = options.seed;
  info.hyperparameters = {
      {"total_steps", absl::StrCat(options.total_steps)},
      {"batch_size", absl::StrCat(options.batch_size)},
      {"unroll_length", absl::StrCat(options.unroll_length)},
      {"learning_rate", absl::StrCat(options.learning_rate)},
      {"learning_rate_schedule", "linear to 0 over total_steps"},
      {"entropy_cost", absl::StrCat(options.entropy_cost)},
      {"baseline_cost", absl::StrCat(options.baseline_cost)},
      {"discounting", "1"},
      {"grad_norm_clipping", absl::StrCat(options.grad_norm_clipping)},
      {"cost_buffer_size", absl::StrCat(options.cost_buffer_size)},
      {"cost_batch_size", absl::StrCat(options.cost_batch_size)},
      {"cost_updates", absl::StrCat(options.cost_updates)},
      {"learner", "synchronous advantage actor-critic (V-trace with rho = c = 1, gamma 1)"},
      {"optimizer", "Adam (torch defaults), one for policy and cost updates"},
  };
  info.training.data = set.description;
  info.training.data_sha256 = result.data_sha256;
  info.training.tasks = static_cast<int64_t>(set.tasks.size());
  info.training.episodes = result.episodes;
  info.training.updates = result.updates;
  info.training.wall_seconds = result.curve.empty() ? 0.0 : result.curve.back().wall_seconds;
  info.training.curve_metric = absl::StrCat(
      "mean episode reward (degree of balance min/max of measured compute when the "
      "plan fits; the memory headroom, negative, when not), sim-",
      profile);
  info.training.curve = CurveSummary(result.curve);
  SHARDPLAN_RETURN_IF_ERROR(WritePolicyBundle(args.Get("models-dir"), info, policy));
  std::cout << (std::filesystem::path(args.Get("models-dir")) / name / version).string()
            << ": policy " << policy.id() << ", " << result.updates << " updates, "
            << result.episodes << " episodes, "
            << absl::StrFormat("%.1f", info.training.wall_seconds) << " s; curve " << csv_path
            << "\n";
  return absl::OkStatus();
}

}  // namespace

Command PolicyTrainAutoShardCommand() {
  return Command{
      .group = "policy",
      .name = "train-autoshard",
      .summary = "Train an AutoShard policy on the simulator and write a policy bundle",
      .description =
          "The reference's training (docs/autoshard.md): episodes sampled from the policy on\n"
          "random training tasks, reward min/max of the simulator's per-device compute (the\n"
          "memory headroom when a plan does not fit), synchronous advantage actor-critic\n"
          "updates every 8 x 100 steps, the cost head fitted on a ring buffer of measured\n"
          "shards. Deterministic for a seed; a checkpoint every --checkpoint-every updates,\n"
          "and --resume continues an interrupted run exactly.\n",
      .flags =
          {
              {"profile", "rtx2080ti|h100-sxm", "the simulator's hardware profile", "rtx2080ti"},
              {"tasks", "N", "training tasks", "96"},
              {"devices", "N[,N]", "device counts, cycled over the tasks", "4,8"},
              {"max-dims", "D[,D]", "max dims, cycled over the tasks (dims from DimGrid)",
               "4,8,16,32,64,128"},
              {"device-memory-gib", "G", "memory per device", "4"},
              {"min-tables", "N", "tables per task at least (0: the reference's range)", "0"},
              {"max-tables", "N", "tables per task at most (0: the reference's range)", "0"},
              {"dtype", "fp32|fp16", "the tables' element type", "fp32"},
              {"pool", "FILE", "table pool", kDefaultPool},
              {"task-seed", "S", "seed of the training tasks (bench uses 0)", "1000"},
              {"total-steps", "N", "the reference's steps (8 x 100 per update)", "100000"},
              {"seed", "S", "initial weights, task and action sampling", "0"},
              {"checkpoint", "FILE", "checkpoint (default <name>-<version>.checkpoint)", ""},
              {"checkpoint-every", "N", "updates between checkpoints", "10"},
              {"resume", "", "continue the run of --checkpoint", ""},
              {"models-dir", "DIR", "where policy bundles live", "models"},
              {"name", "NAME", "policy name (default autoshard-sim-<profile>)", ""},
              {"version", "VERSION", "policy version", "1"},
              {"description", "TEXT", "one line for the manifest", ""},
              {"no-cost-model", "", "ablation: no cost-head updates", ""},
              OptionSpec::Value("drop-feature", "GROUP",
                                "ablation: zero pooling_factor, distribution, dim, rows or size")
                  .Repeatable(),
          },
      .run = RunTrainAutoShard,
  };
}

}  // namespace shardplan::offline
