// row_level: what row-wise, table-row-wise and data-parallel sharding buys (issue 15). On
// Table-1-like tasks over hosts of devices (--topologies HxL), with and without one table larger
// than a device, it plans every task with the torchrec algorithm restricted to table- and
// column-wise shards, with torchrec over every type, and with NeuroShard, all under analytic@1
// (the one model that costs every type, for any device count), and scores each plan on the
// simulator's --profile with the task's hosts. It reports success rate, planning time, the
// cost each plan was rated at (TorchRec's own rating for torchrec) and its ground-truth cost,
// and checks that the full type set never rates worse than TW/CW alone. A scale row plans
// --scale-tables tables on --scale-topology with every type. docs/benchmarks.md explains it.
//
//   build/bench/row_level [--topologies 1x8,2x8,4x8] [--tasks 10] [--huge-factor 2.5]
//       [--device-memory-gib 4] [--profile a100-sxm4] [--scale-tables 1000]
//       [--scale-topology 16x8] [--seed 0] [--pool data/table_pool/dlrm_856.json]
//       [--out bench/results/row_level] [--fresh]
//
// (topology, variant) pairs already in --out.json with the same configuration are reused
// (resume); --fresh recomputes everything.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/synthetic_tasks.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/memory.h"
#include "planner/framework/algorithm_registry.h"
#include "wire/json_io.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

struct Hosts {
  int hosts = 1;
  int local = 1;
  int devices() const { return hosts * local; }
  std::string label() const { return absl::StrCat(hosts, "x", local); }
};

// One way to plan: an algorithm with its parameters, under analytic@1.
struct Planner {
  std::string label;
  std::string algorithm;
  std::map<std::string, std::string> params;
};

const std::vector<Planner>& Planners() {
  static const auto* planners = new std::vector<Planner>{
      {"torchrec TW/CW", "torchrec", {{"sharding_types", "table_wise,column_wise"}}},
      {"torchrec all types", "torchrec", {{"sharding_types", "all"}}},
      {"neuroshard", "neuroshard", {}},
  };
  return *planners;
}

struct Config {
  std::vector<Hosts> topologies;
  int tasks = 0;
  double huge_factor = 0;
  double device_memory_gib = 0;
  std::string profile;
  int scale_tables = 0;
  Hosts scale_topology;
  uint64_t seed = 0;
  std::string pool;
  std::string out;
};

absl::StatusOr<Hosts> ParseHosts(absl::string_view text, const std::string& flag) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, 'x');
  Hosts hosts;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &hosts.hosts) ||
      !absl::SimpleAtoi(parts[1], &hosts.local) || hosts.hosts < 1 || hosts.local < 1) {
    return UsageError(absl::StrCat("--", flag, ": '", text, "' is not HOSTSxDEVICES_PER_HOST"));
  }
  return hosts;
}

json ConfigJson(const Config& config) {
  std::vector<std::string> topologies;
  for (const Hosts& hosts : config.topologies) topologies.push_back(hosts.label());
  return {{"topologies", topologies},
          {"tasks", config.tasks},
          {"huge_factor", config.huge_factor},
          {"device_memory_gib", config.device_memory_gib},
          {"profile", config.profile},
          {"seed", config.seed},
          {"pool", config.pool},
          {"model", "analytic@1"}};
}

// Task i of a topology: per host, the tables of a Table-1 task on that host's devices
// (GenerateTaskTables, index i x hosts + h), on hosts x local devices of the configured memory.
// A single task drawn for all the devices would keep Table 1's count range (up to 15 tables a
// device) but, at 16 devices and more, the resampling almost never finds that many tables under
// the cap: drawing per host keeps each draw as feasible as Table 1's. With `huge`, plus a copy of
// the first table with 8 columns grown to huge_factor x a device's memory; host 0's tables are
// capped to leave room for it, their count's range scaled down with the cap. Above a factor of 2
// no device holds it whole nor cut into column shards (4 columns at least): only rows split it.
absl::StatusOr<Task> BenchTask(const TablePool& pool, const Config& config, const Hosts& hosts,
                               bool huge, int index) {
  TaskGenOptions options;
  options.num_devices = hosts.local;
  options.device_memory_bytes =
      static_cast<int64_t>(config.device_memory_gib * static_cast<double>(kBytesPerGiB));
  const auto huge_bytes =
      static_cast<int64_t>(config.huge_factor * static_cast<double>(options.device_memory_bytes));
  const int64_t host_cap = options.num_devices * options.device_memory_bytes - kBytesPerGiB;
  std::vector<AugmentedTable> tables;
  for (int h = 0; h < hosts.hosts; ++h) {
    TaskGenOptions host_options = options;
    host_options.total_memory_bytes = host_cap;
    if (huge && h == 0) {
      host_options.total_memory_bytes -= huge_bytes;
      const auto [lo, hi] = DefaultTableCountRange(options.num_devices);
      host_options.min_tables = lo;
      host_options.max_tables =
          std::max(lo, static_cast<int32_t>(static_cast<double>(hi) *
                                            static_cast<double>(host_options.total_memory_bytes) /
                                            static_cast<double>(host_cap)));
    }
    SHARDPLAN_ASSIGN_OR_RETURN(
        const std::vector<AugmentedTable> host_tables,
        GenerateTaskTables(pool, host_options, config.seed,
                           static_cast<uint64_t>(index) * static_cast<uint64_t>(hosts.hosts) +
                               static_cast<uint64_t>(h)));
    tables.insert(tables.end(), host_tables.begin(), host_tables.end());
  }
  options.num_devices = hosts.devices();
  Task task = BuildTask(pool, tables, options);
  task.topology.devices_per_host = hosts.local;
  if (huge) {
    Table big = task.tables.front();
    big.name = "huge";
    big.dim = 8;
    big.rows = huge_bytes / (static_cast<int64_t>(big.dim) * ElementBytes(big.element_type));
    task.tables.push_back(std::move(big));
  }
  return task;
}

// One plan: success, planning time, the planning model's cost and the ground truth.
json PlanResult(const Algorithm& algorithm, const Planner& planner, const Task& task,
                const CostModel& model, HardwareBackend& backend, uint64_t seed) {
  PlanTaskOptions options;
  options.params = planner.params;
  options.seed = seed;
  TimedPlan timed = PlanAndTime(algorithm, task, model, options);
  json result = {{"ok", timed.plan.ok()}, {"planning_ms", timed.planning_ms}};
  if (!timed.plan.ok()) {
    result["error"] = std::string(timed.plan.status().message());
    return result;
  }
  result["cost_ms"] = timed.plan->cost_ms;
  std::map<std::string, int> types;
  for (const TableSharding& sharding : timed.plan->tables) {
    ++types[ShardingTypeName(sharding.sharding_type)];
  }
  result["sharding_types"] = types;
  absl::StatusOr<HardwarePlanCost> truth = ScorePlanOnHardware(task, *timed.plan, backend);
  if (truth.ok()) {
    result["ground_truth_ms"] = truth->cost_ms;
  } else {
    result["ground_truth_error"] = std::string(truth.status().message());
  }
  return result;
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

std::string Ms(double value) { return std::isnan(value) ? "-" : absl::StrFormat("%.3f", value); }

// The markdown report of every (topology, variant) entry and the scale row.
std::string Report(const Config& config, const std::vector<json>& entries, const json& scale) {
  std::string out = absl::StrCat(
      "# Row-level sharding: torchrec TW/CW vs every type, and NeuroShard\n\n", config.tasks,
      " Table-1-like tasks per topology and variant (GenerateTaskTables, seed ", config.seed,
      ", pool ", config.pool, "), devices of ", config.device_memory_gib,
      " GiB; \"huge\" adds a table of ", config.huge_factor,
      "x a device's memory. Every planner plans under analytic@1; ground truth is the ",
      config.profile,
      " simulator with the task's hosts. Costs are means over the tasks that every planner "
      "planning any of them planned (n); rated = the planning model's cost (TorchRec's own rating "
      "for torchrec).\n\n");
  absl::StrAppend(&out,
                  "| topology | variant | planner | success | median planning ms | n | mean rated "
                  "ms | mean ground truth ms | types used |\n|---|---|---|---:|---:|---:|---:|---:"
                  "|---|\n");
  std::vector<std::string> checks;
  for (const json& entry : entries) {
    const json& tasks = entry["tasks"];
    // Tasks every planner that planned any task here planned and ground truth scored: with a
    // table only rows can split, the whole-table planners plan none and drop out of the set.
    const auto scored = [](const json& r) {
      return r["ok"].get<bool>() && r.contains("ground_truth_ms");
    };
    std::set<std::string> compared;
    for (const Planner& planner : Planners()) {
      for (const json& task : tasks) {
        if (scored(task[planner.label])) compared.insert(planner.label);
      }
    }
    std::vector<size_t> common;
    for (size_t i = 0; i < tasks.size(); ++i) {
      bool all = !compared.empty();
      for (const std::string& label : compared) all = all && scored(tasks[i][label]);
      if (all) common.push_back(i);
    }
    for (const Planner& planner : Planners()) {
      const size_t n = compared.contains(planner.label) ? common.size() : 0;
      std::vector<double> times, rated, truth;
      int ok = 0;
      std::map<std::string, int> types;
      for (size_t i = 0; i < tasks.size(); ++i) {
        const json& r = tasks[i][planner.label];
        times.push_back(r["planning_ms"].get<double>());
        if (!r["ok"].get<bool>()) continue;
        ++ok;
        for (const auto& [type, count] : r["sharding_types"].items())
          types[type] += count.get<int>();
      }
      for (size_t i : n > 0 ? common : std::vector<size_t>{}) {
        rated.push_back(tasks[i][planner.label]["cost_ms"].get<double>());
        truth.push_back(tasks[i][planner.label]["ground_truth_ms"].get<double>());
      }
      std::string used;
      for (const auto& [type, count] : types)
        absl::StrAppend(&used, used.empty() ? "" : ", ", type, " ", count);
      absl::StrAppend(&out, "| ", entry["topology"].get<std::string>(), " | ",
                      entry["variant"].get<std::string>(), " | ", planner.label, " | ",
                      absl::StrFormat("%d/%d", ok, static_cast<int>(tasks.size())), " | ",
                      Ms(Median(times)), " | ", n, " | ", Ms(Mean(rated)), " | ", Ms(Mean(truth)),
                      " | ", used, " |\n");
    }
    // The promise: every type never rates worse than TW/CW alone, where both planned.
    int worse = 0, both = 0, truth_better = 0, truth_worse = 0, twcw_ok = 0, all_ok = 0;
    for (const json& task : tasks) {
      const json& twcw = task["torchrec TW/CW"];
      const json& all = task["torchrec all types"];
      twcw_ok += twcw["ok"].get<bool>();
      all_ok += all["ok"].get<bool>();
      if (!all["ok"].get<bool>() && twcw["ok"].get<bool>()) ++worse;  // lost a plan
      if (!twcw["ok"].get<bool>() || !all["ok"].get<bool>()) continue;
      ++both;
      if (all["cost_ms"].get<double>() > twcw["cost_ms"].get<double>() * (1 + 1e-12)) ++worse;
      if (all.contains("ground_truth_ms") && twcw.contains("ground_truth_ms")) {
        const double a = all["ground_truth_ms"].get<double>();
        const double b = twcw["ground_truth_ms"].get<double>();
        truth_better += a < b * (1 - 1e-9);
        truth_worse += a > b * (1 + 1e-9);
      }
    }
    checks.push_back(absl::StrCat(
        "- ", entry["topology"].get<std::string>(), " ", entry["variant"].get<std::string>(),
        ": all types rated worse than TW/CW on ", worse, " of ", tasks.size(),
        " tasks (planned: TW/CW ", twcw_ok, ", all types ", all_ok, ", both ", both,
        "); ground truth where both planned: all types cheaper on ", truth_better, ", dearer on ",
        truth_worse));
  }
  absl::StrAppend(&out, "\n## All types against TW/CW (torchrec)\n\n");
  for (const std::string& line : checks) absl::StrAppend(&out, line, "\n");
  if (!scale.is_null()) {
    absl::StrAppend(&out, "\n## Scale\n\n", scale["tables"].get<int>(),
                    " tables (SyntheticTask) on ", scale["topology"].get<std::string>(),
                    " devices, torchrec with every type under "
                    "analytic@1: ",
                    scale["ok"].get<bool>() ? "planned" : "failed", " in ",
                    absl::StrFormat("%.1f", scale["planning_ms"].get<double>()),
                    " ms (target under 1000 ms, not asserted)",
                    scale.contains("cost_ms")
                        ? absl::StrCat(", rated ", Ms(scale["cost_ms"].get<double>()), " ms")
                        : "",
                    ".\n");
  }
  return out;
}

absl::Status Run(const OptionValues& args) {
  Config config;
  for (absl::string_view part : absl::StrSplit(args.Get("topologies"), ',', absl::SkipEmpty())) {
    SHARDPLAN_ASSIGN_OR_RETURN(Hosts hosts, ParseHosts(part, "topologies"));
    config.topologies.push_back(hosts);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(config.scale_topology,
                             ParseHosts(args.Get("scale-topology"), "scale-topology"));
  if (!absl::SimpleAtoi(args.Get("tasks"), &config.tasks) || config.tasks < 1 ||
      !absl::SimpleAtod(args.Get("huge-factor"), &config.huge_factor) ||
      config.huge_factor <= 1.0 ||
      !absl::SimpleAtod(args.Get("device-memory-gib"), &config.device_memory_gib) ||
      config.device_memory_gib <= 1.0 ||
      !absl::SimpleAtoi(args.Get("scale-tables"), &config.scale_tables) ||
      config.scale_tables < 0 || !absl::SimpleAtoi(args.Get("seed"), &config.seed)) {
    return UsageError(
        "--tasks and --scale-tables are counts, --huge-factor > 1, --device-memory-gib > 1, "
        "--seed an integer");
  }
  config.profile = args.Get("profile");
  config.pool = args.Get("pool");
  config.out = args.Get("out");
  SHARDPLAN_ASSIGN_OR_RETURN(const offline::LoadedPool pool,
                             offline::LoadPoolWithHash(config.pool));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  const AnalyticCostModel model;

  const json config_json = ConfigJson(config);
  const std::string json_path = config.out + ".json";
  auto key_of = [](const json& entry) {
    return absl::StrCat(entry["topology"].get<std::string>(), " ",
                        entry["variant"].get<std::string>());
  };
  std::map<std::string, json> previous;
  if (!args.Has("fresh")) previous = PreviousEntries(json_path, config_json, "results", key_of);
  const std::atomic<bool>* stop = offline::InstallStopOnSignal();

  std::vector<json> entries;
  json scale;
  auto write = [&] {
    const json doc = {{"config", config_json}, {"results", entries}, {"scale", scale}};
    return offline::WriteTextFile(json_path, doc.dump(1) + "\n");
  };
  Progress progress(static_cast<int>(config.topologies.size()) * 2 * config.tasks);
  for (const Hosts& hosts : config.topologies) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend,
                               MakeSimBackend(config.profile, hosts.devices(), SimOptions{}));
    for (const bool huge : {false, true}) {
      const std::string variant = huge ? "huge" : "fits";
      json entry = {{"topology", hosts.label()}, {"variant", variant}};
      const std::string key = key_of(entry);
      if (auto it = previous.find(key); it != previous.end()) {
        std::cerr << "[" << key << "] reused from " << json_path << "\n";
        progress.Reuse(config.tasks);
        entries.push_back(it->second);
        continue;
      }
      json tasks = json::array();
      for (int i = 0; i < config.tasks; ++i) {
        if (stop->load()) return InterruptedError("interrupted; rerun to resume");
        SHARDPLAN_ASSIGN_OR_RETURN(const Task task, BenchTask(pool.pool, config, hosts, huge, i));
        json results = {{"index", i}, {"tables", task.tables.size()}};
        for (const Planner& planner : Planners()) {
          SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* algorithm,
                                     algorithms.Find(planner.algorithm));
          results[planner.label] =
              PlanResult(*algorithm, planner, task, model, *backend, config.seed + i);
        }
        tasks.push_back(std::move(results));
        progress.Step(key, i + 1, config.tasks);
      }
      std::cerr << "\n";
      entry["tasks"] = std::move(tasks);
      entries.push_back(std::move(entry));
      SHARDPLAN_RETURN_IF_ERROR(write());  // so an interrupted run resumes from here
    }
  }
  if (config.scale_tables > 0) {
    Task task = SyntheticTask(config.scale_tables, config.scale_topology.devices(), config.seed);
    task.topology.devices_per_host = config.scale_topology.local;
    // Written out so the same task can be timed through the server (docs/benchmarks.md).
    SHARDPLAN_RETURN_IF_ERROR(
        WriteFileAtomically(absl::StrCat(config.out, "_scale_task.json"), wire::TaskToJson(task)));
    SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* torchrec, algorithms.Find("torchrec"));
    PlanTaskOptions options;
    options.params = {{"sharding_types", "all"}};
    TimedPlan timed = PlanAndTime(*torchrec, task, model, options);
    scale = {{"tables", config.scale_tables},
             {"topology", config.scale_topology.label()},
             {"ok", timed.plan.ok()},
             {"planning_ms", timed.planning_ms}};
    if (timed.plan.ok()) scale["cost_ms"] = timed.plan->cost_ms;
  }
  SHARDPLAN_RETURN_IF_ERROR(write());
  return WriteReport(config.out, Report(config, entries, scale));
}

Command RowLevelCommand() {
  return Command{
      .group = "bench",
      .name = "row_level",
      .summary = "torchrec TW/CW vs every sharding type vs NeuroShard, on hosts of devices",
      .description = "See docs/benchmarks.md.\n",
      .flags =
          {
              {"topologies", "HxL,...", "hosts x devices per host", "1x8,2x8,4x8"},
              {"tasks", "N", "tasks per topology and variant", "10"},
              {"huge-factor", "X", "the huge table's size in device memories", "2.5"},
              {"device-memory-gib", "G", "memory of every device", "4"},
              {"profile", "NAME", "the simulator's hardware profile (ground truth)", "a100-sxm4"},
              {"scale-tables", "N", "tables of the scale row (0: none)", "1000"},
              {"scale-topology", "HxL", "hosts x devices per host of the scale row", "16x8"},
              {"seed", "S", "task seed", "0"},
              {"pool", "FILE", "table pool", offline::kDefaultPool},
              {"out", "PREFIX", "writes PREFIX.json, PREFIX.md and PREFIX_scale_task.json",
               "bench/results/row_level"},
              {"fresh", "", "ignore the results of a previous run", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::RowLevelCommand(), argc, argv);
}
