// autoshard_experiment: AutoShard's own experiment (Zha et al., KDD 2022, section 5.2 and
// Table 2; papers/notes/autoshard.md sections 5-7) on this repository's pieces. Tasks of 80 pool
// tables (fp16, dims from {16, 32}) on 8 devices of 7 GiB; AutoShard trained on 90 training
// tasks with the simulator's noisy compute as reward (lab/rl/autoshard), for every (variant,
// seed); every trained policy and every baseline plans the same 10 test tasks through PlanTask;
// each plan's per-device compute is measured on the noise-free simulator and scored as the
// paper does: degree of balance min C / max C, and speedup max C(random) / max C.
// docs/benchmarks.md explains the output.
//
//   build/bench/autoshard_experiment [--variants full,no_cost_model,no_pooling_factor,
//       no_distribution] [--seeds 0,1,2,3,4] [--total-steps 100000] [--out PREFIX] [--fresh]
//
// Every finished (variant, seed) is saved to --out.json at once; a rerun with the same
// configuration reuses them (resume); --fresh recomputes everything.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/seeded_rng.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/data/generators.h"
#include "lab/rl/autoshard/autoshard_trainer.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr char kAutoShard[] = "autoshard";
constexpr char kRandom[] = "random";
// The seed streams of the data (MixSeed(data seed, stream)): the pool tables' dims, the training
// tasks and the test tasks never share draws.
constexpr uint64_t kDimStream = 1, kTrainStream = 2, kTestStream = 3;
constexpr int32_t kDims[] = {16, 32};  // the paper's MetaSyn dims, each table uniform from these

// One AutoShard variant: the paper's Table 2 row it reproduces and the ablation it trains with.
struct Variant {
  const char* name;
  const char* label;
  const char* paper_dob;
  const char* paper_speedup;
  AutoShardAblation ablation;
};
const Variant kVariants[] = {
    {"full", "AutoShard", "88.6% ± 1.2%", "1.712 ± 0.027", {}},
    {"no_cost_model", "w/o cost model", "61.3% ± 12.9%", "1.420 ± 0.203", {.cost_model = true}},
    {"no_pooling_factor",
     "w/o pooling factor",
     "45.9% ± 1.9%",
     "1.271 ± 0.035",
     {.pooling_factor = true}},
    {"no_distribution",
     "w/o distribution features",
     "84.3% ± 1.3%",
     "1.688 ± 0.035",
     {.distribution = true}},
};

absl::StatusOr<const Variant*> FindVariant(absl::string_view name) {
  for (const Variant& v : kVariants) {
    if (name == v.name) return &v;
  }
  return UsageError(absl::StrCat("--variants: unknown variant '", name,
                                 "' (full, no_cost_model, no_pooling_factor, no_distribution)"));
}

struct Config {
  std::string pool;
  uint64_t data_seed = 0;
  int tables = 80, devices = 8, train_tasks = 90, test_tasks = 10;
  int64_t device_memory_bytes = int64_t{7} << 30;
  int64_t total_steps = 100000;
  double noise_sigma = 0.02;
  std::string model;  // what PlanTask evaluates every plan under (the baselines ignore it)
  std::vector<std::string> baselines;
};

json ConfigJson(const Config& c, const std::string& pool_sha256) {
  return {
      {"pool", c.pool},
      {"pool_sha256", pool_sha256},
      {"data_seed", c.data_seed},
      {"tables", c.tables},
      {"dims", kDims},
      {"element_type", "fp16"},
      {"devices", c.devices},
      {"device_memory_bytes", c.device_memory_bytes},
      {"batch_size", kDefaultBatchSize},
      {"train_tasks", c.train_tasks},
      {"test_tasks", c.test_tasks},
      {"total_steps", c.total_steps},
      {"training_ground_truth", absl::StrFormat("sim-%s, noise sigma %g seeded by the run's seed",
                                                kGroundTruthProfile, c.noise_sigma)},
      {"scoring_ground_truth", absl::StrCat("sim-", kGroundTruthProfile, ", noise off")},
      {"model", c.model},
      {"baselines", c.baselines}};
}

// Task `index` of a stream: `tables` distinct pool tables (np.random.choice without
// replacement, as the reference's gen_dlrm_data.py), each at its pool dim, fp16, on `devices`
// devices of device_memory_bytes, one host, the pool's batch.
Task DrawTask(const TablePool& pool, const std::vector<int32_t>& pool_dims, const Config& c,
              uint64_t stream, uint64_t index) {
  std::mt19937_64 rng = SampleRng(MixSeed(c.data_seed, stream), index);
  std::vector<int32_t> ids(pool.tables.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<AugmentedTable> chosen;
  for (int k = 0; k < c.tables; ++k) {
    std::swap(ids[k], ids[k + UniformBelow(rng, ids.size() - k)]);
    chosen.push_back({ids[k], pool_dims[ids[k]]});
  }
  TaskGenOptions options;
  options.num_devices = c.devices;
  options.device_memory_bytes = c.device_memory_bytes;
  Task task = BuildTask(pool, chosen, options);
  for (Table& table : task.tables) table.element_type = ElementType::kFp16;
  return task;
}

// A plan of one test task, scored: per-device compute on the noise-free simulator.
json ScorePlan(const Task& task, const TimedPlan& timed, HardwareBackend& truth) {
  json r = {{"ok", false}, {"planning_ms", timed.planning_ms}};
  absl::StatusOr<HardwarePlanCost> cost =
      timed.plan.ok() ? ScorePlanOnHardware(task, *timed.plan, truth) : timed.plan.status();
  if (!cost.ok()) {
    r["error"] = cost.status().ToString();
    return r;
  }
  const auto [lo, hi] = std::minmax_element(cost->compute_ms.begin(), cost->compute_ms.end());
  r["ok"] = true;
  r["compute_ms"] = cost->compute_ms;
  r["max_ms"] = *hi;
  r["dob"] = *hi > 0.0 ? *lo / *hi : 0.0;
  return r;
}

// Plans every test task with `planner` and scores the plans; speedups against `random_max`.
json PlanTestTasks(const std::vector<Task>& tests, const Algorithm& planner, const CostModel& model,
                   const PlanTaskOptions& base, HardwareBackend& truth,
                   const std::vector<double>& random_max) {
  json tasks = json::array();
  for (size_t i = 0; i < tests.size(); ++i) {
    PlanTaskOptions options = base;
    options.seed = i;
    json r = ScorePlan(tests[i], PlanAndTime(planner, tests[i], model, options), truth);
    r["index"] = i;
    if (r["ok"].get<bool>() && i < random_max.size()) {
      r["speedup"] = random_max[i] / r["max_ms"].get<double>();
    }
    tasks.push_back(std::move(r));
  }
  return tasks;
}

// Mean of `field` over tasks, null when any task failed.
json MeanOver(const json& tasks, const char* field) {
  std::vector<double> values;
  for (const json& t : tasks) {
    if (!t["ok"].get<bool>() || !t.contains(field)) return nullptr;
    values.push_back(t[field].get<double>());
  }
  return Mean(values);
}

double MedianPlanningMs(const json& tasks) {
  std::vector<double> ms;
  for (const json& t : tasks) ms.push_back(t["planning_ms"].get<double>());
  return Median(ms);
}

// Sample standard deviation (n - 1), 0 for fewer than two values.
double SampleStd(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double mean = Mean(values);
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// The trainer's progress lines, shown as the bench's progress line (one line, rewritten).
class LineSink : public std::stringbuf {
 public:
  explicit LineSink(std::function<void(const std::string&)> on_line)
      : on_line_(std::move(on_line)) {}

 protected:
  int sync() override {
    for (const absl::string_view line : absl::StrSplit(str(), '\n', absl::SkipEmpty())) {
      on_line_(std::string(line));
    }
    str("");
    return 0;
  }

 private:
  std::function<void(const std::string&)> on_line_;
};

// One (variant, seed): train on the training tasks, plan the test tasks with the policy (and
// once more without the memory mask, the reference's behaviour), score.
absl::StatusOr<json> RunOne(const Variant& variant, uint64_t seed, const Config& c,
                            const std::vector<Task>& train, const std::vector<Task>& tests,
                            const Algorithm& autoshard, const CostModel& model,
                            HardwareBackend& truth, const std::vector<double>& random_max,
                            const std::function<void(const std::string&)>& on_progress) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::unique_ptr<HardwareBackend> noisy,
      MakeSimBackend(kGroundTruthProfile, c.devices,
                     SimOptions{.noise_sigma = c.noise_sigma, .seed = seed}));
  LineSink sink(on_progress);
  std::ostream progress(&sink);
  autoshard::TrainOptions options;
  options.seed = seed;
  options.total_steps = c.total_steps;
  options.ablation = variant.ablation;
  options.progress = &progress;
  SHARDPLAN_ASSIGN_OR_RETURN(autoshard::TrainResult trained,
                             autoshard::TrainAutoShard(*noisy, train, options));
  // Planned in-process and kept nowhere: the policies are this run's, not artifacts.
  Policy& policy = trained.policy;
  policy.name = absl::StrCat("autoshard-experiment-", variant.name, "-seed", seed);
  policy.version = "1";
  policy.hardware_profile = noisy->hardware_profile();

  PlanTaskOptions masked;
  masked.policy = &policy;
  json tasks = PlanTestTasks(tests, autoshard, model, masked, truth, random_max);
  PlanTaskOptions unmasked = masked;
  unmasked.params = {{"mask_memory", "false"}};
  int overfull = 0;
  for (const json& t : PlanTestTasks(tests, autoshard, model, unmasked, truth, random_max)) {
    overfull += t["ok"].get<bool>() ? 0 : 1;
  }
  const auto& last = trained.curve.back();
  return json{{"variant", variant.name},
              {"seed", seed},
              {"training",
               {{"wall_seconds", trained.wall_seconds},
                {"episodes", trained.episodes},
                {"updates", trained.updates},
                {"episodes_per_second", trained.episodes / trained.wall_seconds},
                {"final_mean_reward", last.mean_reward},
                {"final_feasible_fraction", last.feasible_fraction}}},
              {"dob", MeanOver(tasks, "dob")},
              {"speedup", MeanOver(tasks, "speedup")},
              {"median_planning_ms", MedianPlanningMs(tasks)},
              {"unmasked_overfull_plans", overfull},
              {"tasks", std::move(tasks)}};
}

std::string Percent(const json& v) {
  return v.is_null() ? "-" : absl::StrFormat("%.1f%%", 100.0 * v.get<double>());
}
std::string Ratio(const json& v) { return NumberOrDash(v, "%.3f"); }

std::string Report(const Config& c, const json& baselines, const json& runs,
                   const std::vector<const Variant*>& variants, const std::vector<int>& seeds) {
  std::string out = absl::StrFormat(
      "# AutoShard's own experiment (KDD 2022, section 5.2 and Table 2)\n\n"
      "%d training and %d test tasks of %d pool tables (%s, data seed %d; fp16, dims from "
      "{16, 32} per pool table), %d devices of %.0f GiB, batch %d. AutoShard trained for %d "
      "steps per run on sim-%s with noise sigma %g (the run's seed); every plan scored on the "
      "noise-free simulator by its per-device compute (forward + backward kernels, an empty "
      "device 0 ms). DoB = min / max device compute, speedup = max compute of `random`'s plan / "
      "max compute, each the mean over the %d test tasks; AutoShard rows: mean ± sample std "
      "(n - 1) over the seeds. Plans made through PlanTask under %s.\n\n",
      c.train_tasks, c.test_tasks, c.tables, c.pool, c.data_seed, c.devices,
      static_cast<double>(c.device_memory_bytes) / (int64_t{1} << 30), kDefaultBatchSize,
      c.total_steps, kGroundTruthProfile, c.noise_sigma, c.test_tasks, c.model);
  absl::StrAppend(&out,
                  "| row | runs | DoB | speedup | paper DoB | paper speedup | median planning ms "
                  "| unmasked over-full plans |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::string timing =
      "| variant | runs | training s / run (mean, min-max) | episodes / run | episodes / s | "
      "final mean reward |\n|---|---:|---:|---:|---:|---:|\n";
  for (const Variant* v : variants) {
    std::vector<double> dob, speedup, ms, wall, eps, episodes, reward;
    int overfull = 0, failed = 0;
    for (const json& run : runs) {
      if (run["variant"] != v->name ||
          std::find(seeds.begin(), seeds.end(), run["seed"].get<int>()) == seeds.end()) {
        continue;
      }
      if (run["dob"].is_null() || run["speedup"].is_null()) {
        ++failed;
      } else {
        dob.push_back(run["dob"].get<double>());
        speedup.push_back(run["speedup"].get<double>());
      }
      for (const json& t : run["tasks"]) ms.push_back(t["planning_ms"].get<double>());
      overfull += run["unmasked_overfull_plans"].get<int>();
      const json& tr = run["training"];
      wall.push_back(tr["wall_seconds"].get<double>());
      eps.push_back(tr["episodes_per_second"].get<double>());
      episodes.push_back(tr["episodes"].get<double>());
      reward.push_back(tr["final_mean_reward"].get<double>());
    }
    const int n = static_cast<int>(wall.size());
    const std::string runs_text =
        absl::StrCat(n, failed > 0 ? absl::StrCat(" (", failed, " failed)") : "");
    if (n == 0) {
      absl::StrAppend(&out, "| ", v->label, " | 0 | not run | | ", v->paper_dob, " | ",
                      v->paper_speedup, " | | |\n");
      continue;
    }
    absl::StrAppend(
        &out,
        absl::StrFormat("| %s | %s | %.1f%% ± %.1f%% | %.3f ± %.3f | %s | %s | %.3f | %d of %d |\n",
                        v->label, runs_text, 100 * Mean(dob), 100 * SampleStd(dob), Mean(speedup),
                        SampleStd(speedup), v->paper_dob, v->paper_speedup, Median(ms), overfull,
                        n * c.test_tasks));
    absl::StrAppend(
        &timing, absl::StrFormat("| %s | %d | %.0f (%.0f-%.0f) | %.0f | %.1f | %.3f |\n", v->label,
                                 n, Mean(wall), *std::min_element(wall.begin(), wall.end()),
                                 *std::max_element(wall.begin(), wall.end()), Mean(episodes),
                                 Mean(eps), Mean(reward)));
  }
  for (const json& b : baselines) {
    absl::StrAppend(&out, "| ", b["label"].get<std::string>(), " | deterministic | ",
                    Percent(b["dob"]), " | ", Ratio(b["speedup"]), " | | | ",
                    absl::StrFormat("%.3f", b["median_planning_ms"].get<double>()), " | |\n");
  }
  absl::StrAppend(&out, "\n## Training\n\n", timing);
  absl::StrAppend(
      &out,
      "\n## Notes\n\n- The baselines are deterministic for a task (`random` with plan seed = "
      "the test task's index), so they have one value, not a spread over seeds; `random`'s plans "
      "are the speedup's reference.\n- AutoShard plans with the algorithm's defaults "
      "(mask_memory true). \"unmasked over-full plans\": test plans that the reference's "
      "behaviour (mask_memory false) leaves over a device's memory, over all runs.\n- The "
      "paper's numbers are Table 2 (MetaSyn on 2080 Ti GPUs, FBGEMM kernels); these are the "
      "simulator's compute model (docs/benchmarks.md says what that changes).\n");
  return out;
}

absl::Status Run(const OptionValues& args) {
  Config c;
  std::vector<const Variant*> variants;
  for (const absl::string_view name :
       absl::StrSplit(args.Get("variants"), ',', absl::SkipEmpty())) {
    SHARDPLAN_ASSIGN_OR_RETURN(const Variant* v, FindVariant(name));
    variants.push_back(v);
  }
  std::vector<int> seeds;
  for (const absl::string_view s : absl::StrSplit(args.Get("seeds"), ',', absl::SkipEmpty())) {
    int seed = -1;
    if (!absl::SimpleAtoi(s, &seed) || seed < 0) {
      return UsageError(absl::StrCat("--seeds: '", s, "' is not a non-negative integer"));
    }
    seeds.push_back(seed);
  }
  if (variants.empty() || seeds.empty()) return UsageError("--variants and --seeds need a value");
  SHARDPLAN_ASSIGN_OR_RETURN(c.total_steps, args.GetInt("total-steps"));
  SHARDPLAN_ASSIGN_OR_RETURN(c.data_seed, args.GetUint("data-seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(c.noise_sigma, args.GetDouble("noise-sigma"));
  if (c.total_steps < 1) return UsageError("--total-steps must be >= 1");
  c.pool = args.Get("pool");
  c.model = args.Get("model");
  c.baselines = absl::StrSplit(args.Get("baselines"), ',', absl::SkipEmpty());
  if (std::find(c.baselines.begin(), c.baselines.end(), kRandom) == c.baselines.end()) {
    c.baselines.insert(c.baselines.begin(), kRandom);  // the speedup's reference
  }
  const std::string out = args.Get("out");

  SHARDPLAN_ASSIGN_OR_RETURN(const offline::LoadedPool pool, offline::LoadPoolWithHash(c.pool));
  if (static_cast<int>(pool.pool.tables.size()) < c.tables) {
    return absl::InvalidArgumentError(absl::StrCat(c.pool, ": fewer than ", c.tables, " tables"));
  }
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel model, models.Resolve(c.model));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* autoshard, algorithms.Find(kAutoShard));

  // The pool's dims, drawn once per pool table (gen_dlrm_data.py's table_configs), so a table
  // has the same dim in every task; then the tasks, each from its own stream.
  std::vector<int32_t> pool_dims;
  std::mt19937_64 dim_rng = SampleRng(MixSeed(c.data_seed, kDimStream), 0);
  for (size_t t = 0; t < pool.pool.tables.size(); ++t) {
    pool_dims.push_back(kDims[UniformBelow(dim_rng, std::size(kDims))]);
  }
  std::vector<Task> train, tests;
  for (int i = 0; i < c.train_tasks; ++i) {
    train.push_back(DrawTask(pool.pool, pool_dims, c, kTrainStream, i));
  }
  for (int i = 0; i < c.test_tasks; ++i) {
    tests.push_back(DrawTask(pool.pool, pool_dims, c, kTestStream, i));
    SHARDPLAN_RETURN_IF_ERROR(ValidateTask(tests.back()));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> truth,
                             MakeGroundTruth(c.devices, kGroundTruthProfile));

  // The baselines (cheap, recomputed every run); random first, the speedup's reference.
  json baselines = json::array();
  std::vector<double> random_max;
  for (const std::string& name : c.baselines) {
    SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* planner, algorithms.Find(name));
    json tasks = PlanTestTasks(tests, *planner, *model.model, {}, *truth, random_max);
    if (name == kRandom) {
      for (json& t : tasks) {
        if (!t["ok"].get<bool>()) return absl::InternalError("random failed a test task");
        random_max.push_back(t["max_ms"].get<double>());
        t["speedup"] = 1.0;
      }
    }
    baselines.push_back({{"label", name},
                         {"dob", MeanOver(tasks, "dob")},
                         {"speedup", MeanOver(tasks, "speedup")},
                         {"median_planning_ms", MedianPlanningMs(tasks)},
                         {"tasks", std::move(tasks)}});
  }

  const json config = ConfigJson(c, pool.sha256);
  const std::string json_path = out + ".json";
  auto key = [](const json& run) {
    return absl::StrCat(run["variant"].get<std::string>(), "/", run["seed"].get<int>());
  };
  std::map<std::string, json> previous;
  if (!args.Has("fresh")) previous = PreviousEntries(json_path, config, "runs", key);
  // Runs of other variants or seeds a previous run saved stay in the file.
  json runs = json::array();
  for (const auto& [k, run] : previous) runs.push_back(run);
  auto write = [&] {
    const json doc = {{"config", config}, {"baselines", baselines}, {"runs", runs}};
    return offline::WriteTextFile(json_path, doc.dump(1) + "\n");
  };
  SHARDPLAN_RETURN_IF_ERROR(write());
  const std::atomic<bool>* stop = offline::InstallStopOnSignal();
  const int total = static_cast<int>(variants.size() * seeds.size());
  Progress progress(total);
  for (const Variant* v : variants) {
    for (size_t s = 0; s < seeds.size(); ++s) {
      const std::string label = absl::StrCat(v->name, " seed ", seeds[s]);
      if (previous.contains(absl::StrCat(v->name, "/", seeds[s]))) {
        std::cerr << "[" << label << "] reused from " << json_path << "\n";
        progress.Reuse(1);
        continue;
      }
      if (stop->load()) return InterruptedError("interrupted; rerun to resume");
      auto on_line = [&](const std::string& line) {
        progress.Working(v->name, static_cast<int>(s) + 1, static_cast<int>(seeds.size()),
                         absl::StrCat("seed ", seeds[s], ": ", line.substr(line.find(' ') + 1)));
      };
      SHARDPLAN_ASSIGN_OR_RETURN(json run, RunOne(*v, seeds[s], c, train, tests, *autoshard,
                                                  *model.model, *truth, random_max, on_line));
      progress.Step(v->name, static_cast<int>(s) + 1, static_cast<int>(seeds.size()));
      std::cerr << "\n[" << label << "] DoB " << Percent(run["dob"]) << ", speedup "
                << Ratio(run["speedup"]) << ", "
                << absl::StrFormat("%.0f s", run["training"]["wall_seconds"].get<double>()) << "\n";
      runs.push_back(std::move(run));
      SHARDPLAN_RETURN_IF_ERROR(write());  // at once, so an interrupted run resumes from here
    }
  }
  return WriteReport(out, Report(c, baselines, runs, variants, seeds));
}

Command ExperimentCommand() {
  return Command{
      .group = "bench",
      .name = "autoshard_experiment",
      .summary =
          "AutoShard's section 5.2 / Table 2: degree of balance and speedup of trained "
          "policies, ablations and baselines on held-out tasks",
      .description = "See docs/benchmarks.md.\n",
      .flags =
          {
              {"variants", "V,...", "AutoShard variants to train",
               "full,no_cost_model,no_pooling_factor,no_distribution"},
              {"seeds", "S,...", "training seeds, one run each", "0,1,2,3,4"},
              {"total-steps", "N", "training steps per run (the reference's 100000)", "100000"},
              {"data-seed", "S", "seed of the pool dims and the train and test tasks", "0"},
              {"noise-sigma", "X", "the simulator's measurement noise in training rewards", "0.02"},
              {"pool", "FILE", "table pool", offline::kDefaultPool},
              {"models-dir", "DIR", "model bundles", "models"},
              {"model", "NAME@VERSION",
               "cost model PlanTask evaluates plans under (only neuroshard plans with it)",
               "sim-rtx2080ti@2"},
              {"baselines", "A,...", "baseline algorithms (random is always run)",
               "random,size_greedy,dim_greedy,lookup_greedy,neuroshard"},
              {"out", "PREFIX", "writes PREFIX.json and PREFIX.md",
               "bench/results/autoshard_experiment"},
              {"fresh", "", "ignore the results of a previous run", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::ExperimentCommand(), argc, argv);
}
