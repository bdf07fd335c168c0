// criteo_suites: issue 27's benchmark suites. Criteo-shaped tasks (the 26 public Criteo-Kaggle
// cardinalities, pooling factor 1, Zipf access with a per-table exponent; bench/dataset_tables.h)
// on hosts of devices, as they are, with a few hot tables added and with a table larger than a
// device, plus the DLRM-shaped held-out suites (bench/heldout_suites.sh's tasks). For every
// hardware profile every task is planned by NeuroShard (defaults and search-only), `torchrec`
// under analytic@1 and under the profile's newest neural model, the greedy baselines, AutoShard
// and DreamShard (their newest shipped policies), and every plan is scored on the profile's
// simulator (ScorePlanOnHardware, noise off). It reports, per suite, each planner's mean
// ground-truth cost and ratio to the best planner of each task, how many tasks the default plan
// (neuroshard, defaults) is more than 1% behind another planner, and every refusal with its
// reason. docs/benchmarks.md, "Criteo-shaped suites".
//
//   build/bench/criteo_suites                 # the default run (a few minutes)
//   build/bench/criteo_suites --quick         # one task per suite, --out PREFIX_quick
//   build/bench/criteo_suites --help
//
// (profile, suite) results already in --out.json with the same configuration are reused
// (resume); --fresh recomputes everything.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/seeded_rng.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/dataset_tables.h"
#include "costmodels/model_registry.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/memory.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "wire/json_io.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr char kDefaultRow[] = "neuroshard";
constexpr char kAnalyticModel[] = "analytic@1";
// A gap counts when the default plan costs more than (1 + this) x another planner's plan.
constexpr double kBehindTolerance = 0.01;

// One planner: an algorithm with parameters under a cost model. `model` is kAnalyticModel or ""
// for the profile's newest neural model.
struct PlannerSpec {
  std::string label;
  std::string algorithm;
  std::string model;
  std::map<std::string, std::string> params;
};

const std::vector<PlannerSpec>& PlannerSpecs() {
  static const auto* specs = new std::vector<PlannerSpec>{
      {kDefaultRow, "neuroshard", "", {}},
      {"neuroshard-search-only", "neuroshard", "", {{"baselines", "false"}}},
      {"torchrec-analytic", "torchrec", kAnalyticModel, {}},
      {"torchrec-neural", "torchrec", "", {}},
      {"random", "random", "", {}},
      {"size_greedy", "size_greedy", "", {}},
      {"dim_greedy", "dim_greedy", "", {}},
      {"lookup_greedy", "lookup_greedy", "", {}},
      {"size_lookup_greedy", "size_lookup_greedy", "", {}},
      {"autoshard", "autoshard", "", {}},
      {"dreamshard", "dreamshard", "", {}},
  };
  return *specs;
}

// A planner resolved for one profile.
struct Planner {
  PlannerSpec spec;
  const Algorithm* algorithm = nullptr;
  ResolvedModel model;
  std::shared_ptr<const Policy> policy;  // the learned planners'
  std::map<std::string, std::string> params;
};

struct Hosts {
  int hosts = 1;
  int local = 1;
  int devices() const { return hosts * local; }
  std::string label() const { return absl::StrCat(hosts, "x", local); }
};

// A suite: a kind of task and how many. Criteo suites are (topology, variant); DLRM suites
// (devices, max dim) of the held-out pool.
struct Suite {
  std::string name;  // "criteo 2x8 hot", "dlrm 4/128"
  bool criteo = true;
  Hosts hosts;
  std::string variant;  // criteo: base, hot, huge
  int max_dim = 0;      // dlrm
  int tasks = 0;
};

struct Config {
  std::string dataset;
  std::vector<Hosts> topologies;
  std::vector<std::string> variants;
  int seeds = 0;
  uint64_t seed = 0;
  int dim = 0;
  double min_exponent = 0, max_exponent = 0;
  int hot_tables = 0;
  double hot_min_pooling = 0, hot_max_pooling = 0;
  double huge_gib = 0;
  int huge_dim = 0;
  double device_memory_gib = 0;
  std::string dlrm_pool;
  uint64_t dlrm_seed = 0;
  std::vector<int> dlrm_devices, dlrm_max_dims;
  int dlrm_tasks = 0;
  std::vector<std::string> profiles;
  std::string out;
  std::string dump;  // empty: no task or plan files
};

absl::StatusOr<Hosts> ParseHosts(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, 'x');
  Hosts hosts;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &hosts.hosts) ||
      !absl::SimpleAtoi(parts[1], &hosts.local) || hosts.hosts < 1 || hosts.local < 1) {
    return UsageError(absl::StrCat("--topologies: '", text, "' is not HOSTSxDEVICES_PER_HOST"));
  }
  return hosts;
}

std::vector<Suite> Suites(const Config& config) {
  std::vector<Suite> suites;
  for (const Hosts& hosts : config.topologies) {
    for (const std::string& variant : config.variants) {
      suites.push_back({absl::StrCat("criteo ", hosts.label(), " ", variant), true, hosts, variant,
                        0, config.seeds});
    }
  }
  if (config.dlrm_tasks > 0) {
    for (int devices : config.dlrm_devices) {
      for (int max_dim : config.dlrm_max_dims) {
        suites.push_back({absl::StrCat("dlrm ", devices, "/", max_dim), false, Hosts{1, devices},
                          "", max_dim, config.dlrm_tasks});
      }
    }
  }
  return suites;
}

// Criteo task k of a suite: the data set's tables with seed (seed + k), dim --dim; "hot" adds
// --hot-tables copies of large features (>= 100k rows) read with a pooling factor log-uniform in
// [--hot-min-pooling, --hot-max-pooling]; "huge" adds a --huge-gib table of dim --huge-dim, which
// no device holds whole and only row shards can split (its columns are too few for column
// shards). Devices of --device-memory-gib on hosts of the suite's topology.
absl::StatusOr<Task> CriteoTask(const DatasetSpec& spec, const Config& config, const Suite& suite,
                                int k) {
  const uint64_t seed = config.seed + static_cast<uint64_t>(k);
  ZipfTableOptions options;
  options.dim = config.dim;
  options.min_exponent = config.min_exponent;
  options.max_exponent = config.max_exponent;
  SHARDPLAN_ASSIGN_OR_RETURN(DatasetTables tables, MakeDatasetTables(spec, options, seed));
  Task task;
  task.tables = std::move(tables.tables);
  // The extra tables draw from their own stream, so a task's dataset tables are the same in
  // every variant.
  std::mt19937_64 rng = SampleRng(MixSeed(seed, 0x4a07), 0);
  const auto exponent = [&] {
    return config.min_exponent + (config.max_exponent - config.min_exponent) * Uniform01(rng);
  };
  if (suite.variant == "hot") {
    std::vector<int> large;
    for (size_t i = 0; i < spec.cardinalities.size(); ++i) {
      if (spec.cardinalities[i] >= 100000) large.push_back(static_cast<int>(i));
    }
    if (large.empty())
      return absl::InvalidArgumentError("hot: the data set has no feature >= 100k rows");
    for (int h = 0; h < config.hot_tables; ++h) {
      const int source = large[UniformBelow(rng, large.size())];
      Table hot = task.tables[static_cast<size_t>(source)];
      hot.name = absl::StrCat("hot", h, "_", hot.name);
      hot.pooling_factor = std::exp(
          std::log(config.hot_min_pooling) +
          (std::log(config.hot_max_pooling) - std::log(config.hot_min_pooling)) * Uniform01(rng));
      hot.access_bins = ZipfAccessBins(hot.rows, hot.pooling_factor, exponent(), task.batch_size);
      task.tables.push_back(std::move(hot));
    }
  } else if (suite.variant == "huge") {
    Table huge;
    huge.name = "huge";
    huge.dim = config.huge_dim;
    huge.pooling_factor = 1.0;
    huge.rows = static_cast<int64_t>(config.huge_gib * static_cast<double>(kBytesPerGiB)) /
                (static_cast<int64_t>(huge.dim) * ElementBytes(huge.element_type));
    huge.access_bins = ZipfAccessBins(huge.rows, huge.pooling_factor, exponent(), task.batch_size);
    task.tables.push_back(std::move(huge));
  } else if (suite.variant != "base") {
    return UsageError(absl::StrCat("--variants: '", suite.variant, "' is not base, hot or huge"));
  }
  task.topology.memory_bytes.assign(
      static_cast<size_t>(suite.hosts.devices()),
      static_cast<int64_t>(config.device_memory_gib * static_cast<double>(kBytesPerGiB)));
  task.topology.devices_per_host = suite.hosts.local;
  return task;
}

absl::StatusOr<Task> SuiteTask(const DatasetSpec& spec, const TablePool& dlrm_pool,
                               const Config& config, const Suite& suite, int k) {
  Task task;
  if (suite.criteo) {
    SHARDPLAN_ASSIGN_OR_RETURN(task, CriteoTask(spec, config, suite, k));
  } else {
    // bench/heldout_suites.sh's tasks: Table 1's generator on the held-out pool.
    TaskGenOptions options;
    options.num_devices = suite.hosts.devices();
    options.max_dim = suite.max_dim;
    SHARDPLAN_ASSIGN_OR_RETURN(task, GenerateTask(dlrm_pool, options, config.dlrm_seed, k));
  }
  // As the server plans it: validated and in canonical order.
  task = CanonicalTask(std::move(task));
  SHARDPLAN_RETURN_IF_ERROR(ValidateTask(task));
  return task;
}

// The planners for `profile`: the neural rows under sim-<profile>'s newest version, the learned
// planners with their newest policy for that hardware.
absl::StatusOr<std::vector<Planner>> ResolvePlanners(const std::string& profile,
                                                     const std::string& models_dir,
                                                     const ModelRegistry& models,
                                                     const AlgorithmRegistry& algorithms) {
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel neural, models.Resolve("sim-" + profile));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel analytic, models.Resolve(kAnalyticModel));
  std::vector<Planner> planners;
  for (const PlannerSpec& spec : PlannerSpecs()) {
    Planner planner{spec, nullptr, spec.model == kAnalyticModel ? analytic : neural, nullptr,
                    spec.params};
    SHARDPLAN_ASSIGN_OR_RETURN(planner.algorithm, algorithms.Find(spec.algorithm));
    if (planner.algorithm->info().uses_policy) {
      SHARDPLAN_ASSIGN_OR_RETURN(
          planner.policy,
          LoadLatestPolicy(models_dir,
                           absl::StrCat(spec.algorithm, "-", neural.manifest.hardware_profile)));
      planner.params["policy"] = planner.policy->id();
    }
    planners.push_back(std::move(planner));
  }
  return planners;
}

// `dump_prefix` (optional): writes the plan, scored on ground truth, to PREFIX<label>.plan.json.
json PlanOne(const Planner& planner, const Task& task, HardwareBackend& ground_truth,
             uint64_t seed, const std::string& dump_prefix) {
  PlanTaskOptions options;
  options.seed = seed;
  options.params = planner.params;
  options.policy = planner.policy.get();
  TimedPlan timed = PlanAndTime(*planner.algorithm, task, *planner.model.model, options);
  json r = {{"ok", false}, {"planning_ms", timed.planning_ms}};
  absl::StatusOr<HardwarePlanCost> truth =
      timed.plan.ok() ? ScorePlanOnHardware(task, *timed.plan, ground_truth) : timed.plan.status();
  if (!truth.ok()) {
    r["error"] = truth.status().ToString();
    return r;
  }
  if (!dump_prefix.empty()) {
    Plan scored = *timed.plan;
    if (absl::Status s = EvaluatePlanOnHardware(task, ground_truth, scored); s.ok()) {
      (void)offline::WriteTextFile(
          absl::StrCat(dump_prefix, planner.spec.label, ".predicted.json"), wire::PlanToJson(*timed.plan));
      (void)offline::WriteTextFile(
          absl::StrCat(dump_prefix, planner.spec.label, ".truth.json"), wire::PlanToJson(scored));
    }
  }
  r["ok"] = true;
  r["cost_ms"] = truth->cost_ms;
  r["planned_cost_ms"] = timed.plan->cost_ms;
  std::map<std::string, int> types;
  for (const TableSharding& sharding : timed.plan->tables) {
    ++types[ShardingTypeName(sharding.sharding_type)];
  }
  r["sharding_types"] = types;
  return r;
}

json ConfigJson(const Config& config, const std::map<std::string, std::vector<Planner>>& planners) {
  std::vector<std::string> topologies;
  for (const Hosts& hosts : config.topologies) topologies.push_back(hosts.label());
  json rows = json::object();
  for (const auto& [profile, list] : planners) {
    json entries = json::array();
    for (const Planner& p : list) {
      entries.push_back({{"label", p.spec.label},
                         {"algorithm", p.spec.algorithm},
                         {"model", p.model.manifest.id()},
                         {"params", p.params}});
    }
    rows[profile] = std::move(entries);
  }
  return {{"dataset", config.dataset},
          {"topologies", topologies},
          {"variants", config.variants},
          {"seeds", config.seeds},
          {"seed", config.seed},
          {"dim", config.dim},
          {"zipf_exponents", {config.min_exponent, config.max_exponent}},
          {"hot_tables", config.hot_tables},
          {"hot_pooling", {config.hot_min_pooling, config.hot_max_pooling}},
          {"huge", {{"gib", config.huge_gib}, {"dim", config.huge_dim}}},
          {"device_memory_gib", config.device_memory_gib},
          {"dlrm",
           {{"pool", config.dlrm_pool},
            {"seed", config.dlrm_seed},
            {"devices", config.dlrm_devices},
            {"max_dims", config.dlrm_max_dims},
            {"tasks", config.dlrm_tasks}}},
          {"ground_truth", "sim-<profile>, noise 0"},
          {"planners", rows}};
}

// ---- The report ----------------------------------------------------------------------------

// Per task: the cheapest ground-truth cost among the planners that planned it.
std::optional<double> BestCost(const json& task) {
  std::optional<double> best;
  for (const auto& [label, r] : task["results"].items()) {
    if (!r["ok"].get<bool>()) continue;
    const double cost = r["cost_ms"].get<double>();
    if (!best.has_value() || cost < *best) best = cost;
  }
  return best;
}

struct DefaultGap {
  int compared = 0;  // tasks the default planned and some other planner too
  int behind = 0;    // of those, more than kBehindTolerance behind another planner
  int refused = 0;   // tasks the default did not plan and some other planner did
  double worst = -std::numeric_limits<double>::infinity();
  std::string worst_at;  // "task k, vs planner"
};

DefaultGap GapOf(const json& tasks, const std::string& label = kDefaultRow) {
  DefaultGap gap;
  for (const json& task : tasks) {
    const json& mine = task["results"][label];
    std::optional<double> best_other;
    std::string best_label;
    for (const auto& [other, r] : task["results"].items()) {
      if (other == label || !r["ok"].get<bool>()) continue;
      if (!best_other.has_value() || r["cost_ms"].get<double>() < *best_other) {
        best_other = r["cost_ms"].get<double>();
        best_label = other;
      }
    }
    if (!best_other.has_value()) continue;
    if (!mine["ok"].get<bool>()) {
      ++gap.refused;
      continue;
    }
    ++gap.compared;
    const double loss = mine["cost_ms"].get<double>() / *best_other - 1.0;
    if (loss > kBehindTolerance) ++gap.behind;
    if (loss > gap.worst) {
      gap.worst = loss;
      gap.worst_at = absl::StrCat("task ", task["index"].get<int>(), ", vs ", best_label);
    }
  }
  return gap;
}

// TW, CW, RW, TWRW, DP: the report's short names of the proto's sharding type names.
std::string ShortTypeName(const std::string& type) {
  static const auto* names = new std::map<std::string, std::string>{{"TABLE_WISE", "TW"},
                                                                    {"COLUMN_WISE", "CW"},
                                                                    {"ROW_WISE", "RW"},
                                                                    {"TABLE_ROW_WISE", "TWRW"},
                                                                    {"DATA_PARALLEL", "DP"}};
  auto it = names->find(type);
  return it == names->end() ? type : it->second;
}

std::string GapCell(const DefaultGap& gap) {
  if (gap.compared == 0) return "- | -";
  return absl::StrFormat("%d of %d | %+.1f%% (%s)", gap.behind, gap.compared, 100 * gap.worst,
                         gap.worst_at);
}

std::string ProfileReport(const std::string& profile, const std::vector<Planner>& planners,
                          const std::vector<json>& entries) {
  std::string out = absl::StrCat("## ", profile, "\n\nPlanned under ");
  std::vector<std::string> models;
  for (const Planner& p : planners) {
    std::string what = absl::StrCat(p.spec.label, " ", p.model.manifest.id());
    if (p.policy != nullptr) absl::StrAppend(&what, " (policy ", p.policy->id(), ")");
    models.push_back(what);
  }
  absl::StrAppend(&out, absl::StrJoin(models, ", "), "; scored on sim-", profile,
                  ", noise off.\n\n");

  // 1. The target: the default plan never more than 1% behind, never refusing.
  absl::StrAppend(&out,
                  "### The default plan (neuroshard) against every other planner, per task\n\n"
                  "| suite | tasks | default > 1% behind | worst gap | default refused (others "
                  "planned) | search-only > 1% behind | search-only worst |\n"
                  "|---|---:|---:|---|---:|---:|---|\n");
  int total_behind = 0, total_compared = 0, total_refused = 0;
  double worst = -std::numeric_limits<double>::infinity();
  for (const json& entry : entries) {
    const json& tasks = entry["tasks"];
    const DefaultGap gap = GapOf(tasks);
    const DefaultGap search = GapOf(tasks, "neuroshard-search-only");
    total_behind += gap.behind;
    total_compared += gap.compared;
    total_refused += gap.refused;
    if (gap.compared > 0) worst = std::max(worst, gap.worst);
    absl::StrAppend(&out, "| ", entry["suite"].get<std::string>(), " | ", tasks.size(), " | ",
                    GapCell(gap), " | ", gap.refused, " | ", GapCell(search), " |\n");
  }
  absl::StrAppend(
      &out, absl::StrFormat("\nIn all: the default plan is more than 1%% behind another planner "
                            "on %d of %d tasks it planned (worst %+.1f%%) and refused %d tasks "
                            "another planner planned.\n\n",
                            total_behind, total_compared, total_compared > 0 ? 100 * worst : 0.0,
                            total_refused));

  // 2. Ratios to the best planner of each task.
  std::string header = "| suite |", rule = "|---|";
  for (const Planner& p : planners) {
    absl::StrAppend(&header, " ", p.spec.label, " |");
    absl::StrAppend(&rule, "---:|");
  }
  absl::StrAppend(&out,
                  "### Mean ground-truth cost over the best planner of each task (tasks it "
                  "planned; `k!` = k tasks refused)\n\n",
                  header, "\n", rule, "\n");
  std::string costs =
      absl::StrCat("### Mean ground-truth cost, ms (tasks it planned; `*`: not every task)\n\n",
                   header, "\n", rule, "\n");
  std::string times =
      absl::StrCat("### Median planning time, ms (PlanTask)\n\n", header, "\n", rule, "\n");
  // Refusals per planner: the suites and counts, and the first reason.
  std::map<std::string, std::pair<std::vector<std::string>, std::string>> refusals;
  // The sharding types of the default plans and of torchrec's under analytic@1.
  std::string types = absl::StrCat(
      "### Sharding types in the plans (tables of that type, over the suite's tasks)\n\n"
      "| suite | neuroshard | torchrec-analytic |\n|---|---|---|\n");
  for (const json& entry : entries) {
    const json& tasks = entry["tasks"];
    const std::string suite = entry["suite"].get<std::string>();
    absl::StrAppend(&out, "| ", suite, " |");
    absl::StrAppend(&costs, "| ", suite, " |");
    absl::StrAppend(&times, "| ", suite, " |");
    for (const Planner& p : planners) {
      std::vector<double> ratio, cost, planning;
      std::string first_error;
      int failed = 0;
      for (const json& task : tasks) {
        const json& r = task["results"][p.spec.label];
        planning.push_back(r["planning_ms"].get<double>());
        if (!r["ok"].get<bool>()) {
          if (failed++ == 0) first_error = r["error"].get<std::string>();
          continue;
        }
        cost.push_back(r["cost_ms"].get<double>());
        ratio.push_back(cost.back() / *BestCost(task));
      }
      const auto mean = [](const std::vector<double>& v) {
        double sum = 0;
        for (double x : v) sum += x;
        return sum / static_cast<double>(v.size());
      };
      const std::string refused = failed > 0 ? absl::StrCat(" ", failed, "!") : "";
      absl::StrAppend(&out, " ",
                      ratio.empty() ? std::string("-") : absl::StrFormat("%.3f", mean(ratio)),
                      refused, " |");
      absl::StrAppend(&costs, " ",
                      cost.empty() ? std::string("-") : absl::StrFormat("%.2f", mean(cost)),
                      failed > 0 && !cost.empty() ? "*" : "", " |");
      absl::StrAppend(&times, absl::StrFormat(" %.2f |", Median(planning)));
      if (failed > 0) {
        auto& [where, first] = refusals[p.spec.label];
        where.push_back(absl::StrCat(suite, " (", failed, " of ", tasks.size(), ")"));
        if (first.empty()) first = first_error;
      }
    }
    absl::StrAppend(&types, "| ", suite, " |");
    for (const char* label : {kDefaultRow, "torchrec-analytic"}) {
      std::map<std::string, int> count;
      for (const json& task : tasks) {
        const json& r = task["results"][label];
        if (!r["ok"].get<bool>()) continue;
        for (const auto& [type, n] : r["sharding_types"].items()) {
          count[ShortTypeName(type)] += n.get<int>();
        }
      }
      absl::StrAppend(
          &types, " ",
          count.empty() ? std::string("-") : absl::StrJoin(count, ", ", absl::PairFormatter(" ")),
          " |");
    }
    absl::StrAppend(&types, "\n");
    absl::StrAppend(&out, "\n");
    absl::StrAppend(&costs, "\n");
    absl::StrAppend(&times, "\n");
  }
  absl::StrAppend(&out, "\n", costs, "\n", times, "\n", types);
  if (!refusals.empty()) {
    absl::StrAppend(&out, "\n### Refusals (counted as failures), per planner\n\n");
    for (const Planner& p : planners) {
      auto it = refusals.find(p.spec.label);
      if (it == refusals.end()) continue;
      absl::StrAppend(&out, "- ", p.spec.label, ": ", absl::StrJoin(it->second.first, ", "),
                      ". First: ", it->second.second, "\n");
    }
  }
  return out + "\n";
}

std::string Report(const Config& config, const std::vector<std::string>& profiles,
                   const std::map<std::string, std::vector<Planner>>& planners,
                   const std::map<std::string, std::vector<json>>& entries) {
  std::string out = absl::StrFormat(
      "# Criteo-shaped and DLRM-shaped suites (issue 27)\n\n"
      "Criteo suites: the 26 Criteo-Kaggle features of %s, dim %d, pooling factor 1, Zipf "
      "exponent per table uniform in [%g, %g], %d task(s) per suite (seeds %d..%d), devices of "
      "%g GiB on hosts of the topology (HxL); `hot` adds %d copies of features of >= 100k rows "
      "with pooling log-uniform in [%g, %g]; `huge` adds a %g GiB table of dim %d. DLRM suites: "
      "bench/heldout_suites.sh's tasks (pool %s, task seed %d), %d per setting. Every plan is "
      "scored on the profile's simulator; the best planner of a task is the one with the "
      "cheapest ground-truth plan.\n\n",
      config.dataset, config.dim, config.min_exponent, config.max_exponent, config.seeds,
      config.seed, config.seed + config.seeds - 1, config.device_memory_gib, config.hot_tables,
      config.hot_min_pooling, config.hot_max_pooling, config.huge_gib, config.huge_dim,
      config.dlrm_pool, config.dlrm_seed, config.dlrm_tasks);
  for (const std::string& profile : profiles) {
    absl::StrAppend(&out, ProfileReport(profile, planners.at(profile), entries.at(profile)));
  }
  return out;
}

// ---- Running -------------------------------------------------------------------------------

absl::StatusOr<std::vector<std::string>> StringList(const OptionValues& args,
                                                    const std::string& flag) {
  std::vector<std::string> out = absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty());
  if (out.empty()) return UsageError(absl::StrCat("--", flag, " is empty"));
  return out;
}

absl::StatusOr<Config> ParseConfig(const OptionValues& args) {
  Config config;
  config.dataset = args.Get("dataset");
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<std::string> topologies,
                             StringList(args, "topologies"));
  for (const std::string& t : topologies) {
    SHARDPLAN_ASSIGN_OR_RETURN(Hosts hosts, ParseHosts(t));
    config.topologies.push_back(hosts);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(config.variants, StringList(args, "variants"));
  for (const std::string& v : config.variants) {
    if (v != "base" && v != "hot" && v != "huge") {
      return UsageError(absl::StrCat("--variants: '", v, "' is not base, hot or huge"));
    }
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t seeds, args.GetInt("seeds"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t dim, args.GetInt("dim"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.min_exponent, args.GetDouble("min-exponent"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.max_exponent, args.GetDouble("max-exponent"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t hot_tables, args.GetInt("hot-tables"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.hot_min_pooling, args.GetDouble("hot-min-pooling"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.hot_max_pooling, args.GetDouble("hot-max-pooling"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.huge_gib, args.GetDouble("huge-gib"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t huge_dim, args.GetInt("huge-dim"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.device_memory_gib, args.GetDouble("device-memory-gib"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t dlrm_tasks, args.GetInt("dlrm-tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.dlrm_seed, args.GetUint("dlrm-seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.dlrm_devices, IntList(args, "dlrm-devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.dlrm_max_dims, IntList(args, "dlrm-max-dims"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.profiles, StringList(args, "profiles"));
  if (seeds < 1 || dim < 1 || hot_tables < 0 || huge_dim < 1 || dlrm_tasks < 0) {
    return UsageError(
        "--seeds, --dim and --huge-dim must be positive, --hot-tables and --dlrm-tasks >= 0");
  }
  if (!(config.hot_min_pooling > 0 && config.hot_min_pooling <= config.hot_max_pooling)) {
    return UsageError("--hot-min-pooling must be > 0 and <= --hot-max-pooling");
  }
  if (!(config.device_memory_gib > 0) || !(config.huge_gib > 0)) {
    return UsageError("--device-memory-gib and --huge-gib must be > 0");
  }
  for (int max_dim : config.dlrm_max_dims) {
    if (DimGrid(max_dim).empty()) return UsageError("--dlrm-max-dims must be multiples of 4");
  }
  config.seeds = static_cast<int>(seeds);
  config.dim = static_cast<int>(dim);
  config.hot_tables = static_cast<int>(hot_tables);
  config.huge_dim = static_cast<int>(huge_dim);
  config.dlrm_tasks = static_cast<int>(dlrm_tasks);
  config.dlrm_pool = args.Get("dlrm-pool");
  config.out = args.Get("out");
  config.dump = args.Get("dump");
  if (args.Has("quick")) {
    config.seeds = 1;
    config.dlrm_tasks = std::min(config.dlrm_tasks, 1);
    config.out += "_quick";
  }
  return config;
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const Config config, ParseConfig(args));
  SHARDPLAN_ASSIGN_OR_RETURN(const DatasetSpec spec, LoadDatasetSpec(config.dataset));
  {  // Option errors surface before any work (they name the option).
    ZipfTableOptions options;
    options.dim = config.dim;
    options.min_exponent = config.min_exponent;
    options.max_exponent = config.max_exponent;
    if (absl::StatusOr<DatasetTables> t = MakeDatasetTables(spec, options, 0); !t.ok()) {
      return UsageError(t.status().message());
    }
  }
  TablePool dlrm_pool;
  if (config.dlrm_tasks > 0) {
    SHARDPLAN_ASSIGN_OR_RETURN(dlrm_pool, LoadTablePool(config.dlrm_pool));
  }
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  std::map<std::string, std::vector<Planner>> planners;
  for (const std::string& profile : config.profiles) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        planners[profile], ResolvePlanners(profile, args.Get("models-dir"), models, algorithms));
  }
  const std::vector<Suite> suites = Suites(config);

  const json config_json = ConfigJson(config, planners);
  const std::string json_path = config.out + ".json";
  auto key_of = [](const json& entry) {
    return absl::StrCat(entry["profile"].get<std::string>(), "|",
                        entry["suite"].get<std::string>());
  };
  std::map<std::string, json> previous;
  if (!args.Has("fresh")) previous = PreviousEntries(json_path, config_json, "results", key_of);
  const std::atomic<bool>* stop = offline::InstallStopOnSignal();

  std::map<std::string, std::vector<json>> entries;
  auto write = [&] {
    json results = json::array();
    for (const std::string& profile : config.profiles) {
      for (const json& entry : entries[profile]) results.push_back(entry);
    }
    const json doc = {{"config", config_json}, {"results", results}};
    return offline::WriteTextFile(json_path, doc.dump(1) + "\n");
  };
  int total = 0;
  for (const Suite& suite : suites) total += suite.tasks;
  Progress progress(total * static_cast<int>(config.profiles.size()));
  for (const std::string& profile : config.profiles) {
    for (const Suite& suite : suites) {
      json entry = {{"profile", profile}, {"suite", suite.name}};
      const std::string key = key_of(entry);
      if (auto it = previous.find(key); it != previous.end()) {
        std::cerr << "[" << key << "] reused from " << json_path << "\n";
        progress.Reuse(suite.tasks);
        entries[profile].push_back(it->second);
        continue;
      }
      SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> ground_truth,
                                 MakeSimBackend(profile, suite.hosts.devices(), SimOptions{}));
      json tasks = json::array();
      for (int k = 0; k < suite.tasks; ++k) {
        if (stop->load()) return InterruptedError("interrupted; rerun to resume");
        SHARDPLAN_ASSIGN_OR_RETURN(const Task task, SuiteTask(spec, dlrm_pool, config, suite, k));
        std::string dump_prefix;
        if (!config.dump.empty()) {
          const std::string dir = absl::StrCat(config.dump, "/", profile, "/",
                                               absl::StrReplaceAll(suite.name, {{" ", "_"}}), "/", k);
          std::filesystem::create_directories(dir);
          SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(dir + "/task.json", wire::TaskToJson(task, true)));
          dump_prefix = dir + "/";
        }
        json results = json::object();
        for (const Planner& planner : planners[profile]) {
          progress.Working(key, k + 1, suite.tasks, planner.spec.label);
          results[planner.spec.label] = PlanOne(planner, task, *ground_truth,
                                                config.seed + static_cast<uint64_t>(k), dump_prefix);
        }
        tasks.push_back(
            {{"index", k}, {"tables", task.tables.size()}, {"results", std::move(results)}});
        progress.Step(key, k + 1, suite.tasks);
      }
      entry["tasks"] = std::move(tasks);
      entries[profile].push_back(std::move(entry));
      SHARDPLAN_RETURN_IF_ERROR(write());  // so an interrupted run resumes from here
    }
  }
  std::cerr << "\n";
  SHARDPLAN_RETURN_IF_ERROR(write());
  return WriteReport(config.out, Report(config, config.profiles, planners, entries));
}

Command CriteoSuitesCommand() {
  return Command{
      .group = "bench",
      .name = "criteo_suites",
      .summary = "issue 27's suites: every planner on Criteo- and DLRM-shaped tasks, ground truth",
      .description = "See docs/benchmarks.md, \"Criteo-shaped suites\".\n",
      .flags =
          {
              {"dataset", "FILE", "data set spec of the Criteo suites",
               "data/datasets/criteo_kaggle.json"},
              {"topologies", "HxL,...", "hosts x devices per host", "1x4,1x8,2x8,4x8"},
              {"variants", "V,...", "base, hot (hot tables added), huge (a table > a device)",
               "base,hot,huge"},
              {"seeds", "N", "Criteo tasks per suite (seeds --seed .. --seed + N - 1)", "10"},
              {"seed", "S", "first task seed", "0"},
              {"dim", "D", "dim of the data set's tables", "16"},
              {"min-exponent", "X", "smallest Zipf exponent", "0.8"},
              {"max-exponent", "X", "largest Zipf exponent", "1.4"},
              {"hot-tables", "N", "hot tables of the hot variant", "3"},
              {"hot-min-pooling", "P", "hot tables' smallest pooling factor", "250"},
              {"hot-max-pooling", "P", "hot tables' largest pooling factor", "2000"},
              {"huge-gib", "G", "size of the huge variant's table", "30"},
              {"huge-dim", "D", "dim of the huge variant's table", "4"},
              {"device-memory-gib", "G", "memory of every device (Criteo suites)", "16"},
              {"dlrm-pool", "FILE", "pool of the DLRM held-out suites",
               "bench/results/heldout_pool_seed1.json"},
              {"dlrm-seed", "S", "task seed of the DLRM suites", "1"},
              {"dlrm-devices", "N,...", "device counts of the DLRM suites", "4,8"},
              {"dlrm-max-dims", "D,...", "max dims of the DLRM suites", "32,128"},
              {"dlrm-tasks", "N", "tasks per DLRM suite (0: no DLRM suites)", "25"},
              {"profiles", "P,...",
               "hardware profiles (model sim-P, newest version; ground "
               "truth sim:P)",
               "rtx2080ti,h100-sxm"},
              {"models-dir", "DIR", "model and policy bundles", "models"},
              {"quick", "", "a smoke run: one task per suite, --out PREFIX_quick", ""},
              {"out", "PREFIX", "writes PREFIX.json and PREFIX.md", "bench/results/criteo_suites"},
              {"fresh", "", "ignore the results of a previous run", ""},
              {"dump", "DIR",
               "also write every task (DIR/PROFILE/SUITE/K/task.json) and each planner's plan as "
               "planned (LABEL.predicted.json) and scored on ground truth (LABEL.truth.json)",
               ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::CriteoSuitesCommand(), argc, argv);
}
