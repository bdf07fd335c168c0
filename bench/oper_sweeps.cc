// oper_sweeps: issue 29's OPER benchmarks on Criteo-Kaggle-shaped tasks (the 26 public
// cardinalities, dim 16, one Zipf exponent for every table; bench/oper_tasks.h), planned
// in-process by `oper` under analytic@1:
//
//   1. communication per iteration (the plan's comm_us.model_parallel and comm_us.with_copies,
//      docs/oper.md "What the plan reports") by extra memory (a share of the tables' footprint,
//      split evenly over the devices: docs/oper.md C11), per topology, objective and exponent,
//      with the simulator's step time of each plan (--sim-profile);
//   2. the degrees of balance (lookups, memory, communication), the partition count and the
//      planning time by threshold, without backtracking (target_balance=0), at 0% extra memory;
//   3. a few of these planned through a real shardplan-server with the C++ client, interleaved
//      with the same plans in-process (bench/oper_server_timing.h).
//
// docs/benchmarks.md, "OPER's communication, balance and planning time".
//
//   build/bench/oper_sweeps                   # the default run (about a minute)
//   build/bench/oper_sweeps --help
//
// Entries of sweeps 1 and 2 already in --out.json with the same configuration are reused
// (resume); --fresh recomputes them. The server timings are always measured again. --check
// exits 4 (FAILED_PRECONDITION) when the communication grows with extra memory anywhere, when
// the server's plan reports other communication than the in-process one, or when the saved
// JSON does not parse back.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/dataset_tables.h"
#include "bench/oper_server_timing.h"
#include "bench/oper_sweep_report.h"
#include "bench/oper_tasks.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "groundtruth/ground_truth.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

struct SweepConfig {
  std::string dataset;
  std::vector<std::pair<int, int>> topologies;  // hosts x devices per host
  std::vector<Objective> objectives;
  std::vector<double> exponents;
  std::vector<double> extras;  // shares of the footprint, ascending
  std::vector<double> thresholds;
  double device_memory_gib = 0;
  int64_t batch_size = 0;
  std::string sim_profile;  // "none": no simulated step
  int server_rounds = 0;
  std::string models_dir;
  std::string out;

  json ToJson() const {
    json objective_names = json::array();
    for (Objective o : objectives) objective_names.push_back(ObjectiveName(o));
    json topology_names = json::array();
    for (const auto& [h, l] : topologies) topology_names.push_back(absl::StrCat(h, "x", l));
    return {{"dataset", dataset},
            {"topologies", topology_names},
            {"objectives", objective_names},
            {"zipf_exponents", exponents},
            {"extra_memory_shares", extras},
            {"thresholds", thresholds},
            {"device_memory_gib", device_memory_gib},
            {"batch_size", batch_size},
            {"sim_profile", sim_profile}};
  }
};

absl::StatusOr<std::vector<double>> NonNegativeList(const OptionValues& args,
                                                    const std::string& flag) {
  std::vector<double> values;
  for (const absl::string_view part : absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty())) {
    double value = 0;
    if (!absl::SimpleAtod(part, &value) || !(value >= 0) || !std::isfinite(value)) {
      return UsageError(absl::StrCat("--", flag, ": '", part, "' is not a number >= 0"));
    }
    values.push_back(value);
  }
  if (values.empty()) return UsageError(absl::StrCat("--", flag, " is empty"));
  return values;
}

absl::StatusOr<SweepConfig> ParseConfig(const OptionValues& args) {
  SweepConfig config;
  config.dataset = args.Get("dataset");
  SHARDPLAN_ASSIGN_OR_RETURN(config.topologies,
                             IntPairList(args, "topologies", "HOSTSxDEVICES_PER_HOST"));
  if (config.topologies.empty()) return UsageError("--topologies is empty");
  for (const absl::string_view name : absl::StrSplit(args.Get("objectives"), ',')) {
    if (name == "inference") {
      config.objectives.push_back(Objective::kInference);
    } else if (name == "training") {
      config.objectives.push_back(Objective::kTraining);
    } else {
      return UsageError(absl::StrCat("--objectives: '", name, "' is not inference or training"));
    }
  }
  SHARDPLAN_ASSIGN_OR_RETURN(config.exponents, NonNegativeList(args, "exponents"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.extras, NonNegativeList(args, "extras"));
  if (!std::is_sorted(config.extras.begin(), config.extras.end())) {
    return UsageError("--extras must be ascending");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(config.thresholds, NonNegativeList(args, "thresholds"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.device_memory_gib, args.GetDouble("device-memory-gib"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.batch_size, args.GetInt("batch-size"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t rounds, args.GetInt("server-rounds"));
  if (rounds < 0) return UsageError("--server-rounds must be >= 0");
  config.server_rounds = static_cast<int>(rounds);
  config.sim_profile = args.Get("sim-profile");
  config.models_dir = args.Get("models-dir");
  config.out = args.Get("out");
  return config;
}

OperTaskShape ShapeOf(const SweepConfig& config, std::pair<int, int> topology, Objective objective,
                      double exponent, double extra) {
  OperTaskShape shape;
  shape.hosts = topology.first;
  shape.devices_per_host = topology.second;
  shape.device_memory_gib = config.device_memory_gib;
  shape.batch_size = config.batch_size;
  shape.objective = objective;
  shape.zipf_exponent = exponent;
  shape.extra_memory_share = extra;
  return shape;
}

// A figure the plan reports under a dotted key (docs/oper.md); null when it reports none.
json Reported(const Plan& plan, const std::string& key) {
  const auto it = plan.parameters.find(key);
  double value = 0;
  if (it == plan.parameters.end() || !absl::SimpleAtod(it->second, &value)) return nullptr;
  return value;
}

// What every entry records of a plan: OPER's reported figures and the planning time.
json PlanFigures(const Plan& plan, double planning_ms) {
  json figures = {{"planning_ms", planning_ms}, {"analytic_cost_ms", plan.cost_ms}};
  for (const char* key :
       {"threshold.used", "thresholds.tried", "partitions.total", "partitions.access_bounded",
        "balance.lookups", "balance.memory", "balance.comm", "copies.replicas",
        "copies.max_bytes_per_device", "copies.routes", "comm_us.model_parallel",
        "comm_us.with_copies", "duplication.frequency"}) {
    figures[key] = Reported(plan, key);
  }
  return figures;
}

// The simulator's step time of `plan`, or null with --sim-profile none.
absl::StatusOr<json> SimulatedStepMs(const SweepConfig& config, const Task& task, Plan plan) {
  if (config.sim_profile == "none") return nullptr;
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> sim,
                             MakeGroundTruth(task.topology.num_devices(), config.sim_profile));
  SHARDPLAN_RETURN_IF_ERROR(EvaluatePlanOnHardware(task, *sim, plan));
  return plan.cost_ms;
}

std::string TopologyName(std::pair<int, int> topology) {
  return absl::StrCat(topology.first, "x", topology.second);
}

// One planning of `shape` by oper with `params`, its figures and (if asked) its simulated step.
absl::StatusOr<json> MeasureEntry(const SweepConfig& config, const DatasetSpec& spec,
                                  const Algorithm& oper, const CostModel& analytic,
                                  const OperTaskShape& shape,
                                  const std::map<std::string, std::string>& params, bool simulate) {
  SHARDPLAN_ASSIGN_OR_RETURN(const Task task, OperDatasetTask(spec, shape));
  PlanTaskOptions options;
  options.params = params;
  TimedPlan timed = PlanAndTime(oper, task, analytic, options);
  if (!timed.plan.ok()) return timed.plan.status();
  json entry = PlanFigures(*timed.plan, timed.planning_ms);
  entry["extra_bytes_per_device"] = task.replication_budget.extra_bytes_per_device.value_or(0);
  entry["footprint_bytes"] = TablesFootprintBytes(task);
  if (simulate) {
    SHARDPLAN_ASSIGN_OR_RETURN(entry["sim_step_ms"],
                               SimulatedStepMs(config, task, *std::move(timed.plan)));
  }
  return entry;
}

// One entry to measure: its identity (topology, objective, exponent, sweep value), the task's
// shape and oper's parameters; memory_sweep: sweep 1 (simulated), else sweep 2.
struct SweepItem {
  json entry;
  OperTaskShape shape;
  std::map<std::string, std::string> params;
  bool memory_sweep = true;
};

// Every entry of both sweeps, in the order they run and are reported.
std::vector<SweepItem> SweepItems(const SweepConfig& config) {
  std::vector<SweepItem> items;
  for (const auto& topology : config.topologies) {
    for (Objective objective : config.objectives) {
      for (double exponent : config.exponents) {
        for (double extra : config.extras) {
          items.push_back({{{"topology", TopologyName(topology)},
                            {"objective", ObjectiveName(objective)},
                            {"zipf_exponent", exponent},
                            {"sweep_value", extra}},
                           ShapeOf(config, topology, objective, exponent, extra),
                           {},
                           true});
        }
      }
    }
  }
  for (const auto& topology : config.topologies) {
    for (double exponent : config.exponents) {
      for (double threshold : config.thresholds) {
        items.push_back({{{"topology", TopologyName(topology)},
                          {"objective", ObjectiveName(Objective::kInference)},
                          {"zipf_exponent", exponent},
                          {"sweep_value", threshold}},
                         ShapeOf(config, topology, Objective::kInference, exponent, 0.0),
                         {{"threshold", absl::StrCat(threshold)}, {"target_balance", "0"}},
                         false});
      }
    }
  }
  return items;
}

// Through the server: every topology and objective at the first exponent and the first
// non-zero share (or the only one) with the planner's defaults, and the first of them at the
// finest threshold of the balance sweep (the largest plan).
absl::StatusOr<std::vector<ServedSetting>> ServedSettings(const SweepConfig& config,
                                                          const DatasetSpec& spec) {
  const double extra = config.extras.size() > 1 ? config.extras[1] : config.extras.front();
  const double exponent = config.exponents.front();
  std::vector<ServedSetting> settings;
  for (const auto& topology : config.topologies) {
    for (Objective objective : config.objectives) {
      SHARDPLAN_ASSIGN_OR_RETURN(
          Task task, OperDatasetTask(spec, ShapeOf(config, topology, objective, exponent, extra)));
      settings.push_back({absl::StrFormat("%s %s s=%g, %g%% extra", TopologyName(topology),
                                          ObjectiveName(objective), exponent, 100 * extra),
                          std::move(task),
                          {}});
    }
  }
  const double finest = *std::min_element(config.thresholds.begin(), config.thresholds.end());
  ServedSetting fine = settings.front();
  fine.label = absl::StrFormat("%s, threshold %g%%", fine.label, 100 * finest);
  fine.params = {{"threshold", absl::StrCat(finest)}};
  settings.push_back(std::move(fine));
  return settings;
}

// --check: the saved JSON reads back as `result`, communication never grows with extra memory,
// and the server's plans report the in-process communication.
absl::Status CheckResults(const std::string& json_path, const json& result,
                          const std::vector<std::string>& violations) {
  std::ifstream saved(json_path);
  if (json::parse(saved, nullptr, /*allow_exceptions=*/false) != result) {
    return absl::FailedPreconditionError(absl::StrCat(json_path, " does not read back"));
  }
  if (!violations.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("communication grows with extra memory in: ",
                                                      absl::StrJoin(violations, "; ")));
  }
  for (const json& s : result["server"]) {
    if (!s["same_communication"].get<bool>()) {
      return absl::FailedPreconditionError(absl::StrCat(
          s["label"].get<std::string>(), ": the server's plan reports other communication"));
    }
  }
  return absl::OkStatus();
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const SweepConfig config, ParseConfig(args));
  SHARDPLAN_ASSIGN_OR_RETURN(const DatasetSpec spec, LoadDatasetSpec(config.dataset));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* oper, algorithms.Find("oper"));
  const AnalyticCostModel analytic;
  const std::string json_path = config.out + ".json";
  const json config_json = config.ToJson();
  std::map<std::string, json> previous_memory, previous_threshold;
  if (!args.Has("fresh")) {
    previous_memory = PreviousEntries(json_path, config_json, "memory_sweep", EntryKey);
    previous_threshold = PreviousEntries(json_path, config_json, "threshold_sweep", EntryKey);
  }

  const std::vector<SweepItem> items = SweepItems(config);
  const int server_steps =
      config.server_rounds * 2 *
      static_cast<int>(config.topologies.size() * config.objectives.size() + 1);
  Progress progress(static_cast<int>(items.size()) + server_steps);
  json memory_entries = json::array(), threshold_entries = json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    const SweepItem& item = items[i];
    const std::string key = EntryKey(item.entry);
    std::map<std::string, json>& previous =
        item.memory_sweep ? previous_memory : previous_threshold;
    json entry;
    if (const auto it = previous.find(key); it != previous.end()) {
      entry = it->second;
      progress.Reuse(1);
    } else {
      progress.Working(item.memory_sweep ? "memory" : "threshold", static_cast<int>(i + 1),
                       static_cast<int>(items.size()), key);
      SHARDPLAN_ASSIGN_OR_RETURN(entry, MeasureEntry(config, spec, *oper, analytic, item.shape,
                                                     item.params, item.memory_sweep));
      entry.update(item.entry);
      progress.Step(item.memory_sweep ? "memory" : "threshold", static_cast<int>(i + 1),
                    static_cast<int>(items.size()));
    }
    (item.memory_sweep ? memory_entries : threshold_entries).push_back(std::move(entry));
  }

  json served = json::array();
  if (config.server_rounds > 0) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<ServedSetting> settings,
                               ServedSettings(config, spec));
    SHARDPLAN_ASSIGN_OR_RETURN(
        served, TimeThroughServer(settings, config.server_rounds, config.models_dir, *oper,
                                  analytic, progress));
  }

  std::vector<std::string> violations;
  std::string report = absl::StrFormat(
      "# OPER on %s-shaped tasks (bench/oper_sweeps.cc)\n\n"
      "%d tables, dim 16, one Zipf exponent s for every table (an access profile), A100 %g GiB "
      "devices (hardware a100-sxm4, TorchRec's default links: 600 GiB/s within a host, 12.5 "
      "between), global batch %d, `oper` with its defaults under analytic@1, in-process. Extra "
      "memory: the replication budget as a share of the tables' footprint, split evenly over "
      "the devices. Communication: the plan's comm_us (microseconds of row fetches per "
      "iteration under the fetch-cost matrix; for training the all-reduces of duplicated "
      "partitions are not in it). Sim step: the plan's step on sim:%s.\n\n",
      spec.name, spec.cardinalities.size(), config.device_memory_gib, config.batch_size,
      config.sim_profile);
  absl::StrAppend(&report, "## Communication by extra memory\n\n",
                  MemoryReport(memory_entries, violations), "\n",
                  TargetLine(config.exponents.front(), memory_entries),
                  violations.empty() ? "Communication never grows with extra memory: holds.\n"
                                     : absl::StrCat("Communication grows with extra memory in: ",
                                                    absl::StrJoin(violations, "; "), "\n"));
  absl::StrAppend(&report,
                  "\n## Balance and planning time by threshold (0% extra memory, inference, "
                  "target_balance=0: the threshold as given)\n\n",
                  ThresholdReport(threshold_entries));
  if (!served.empty()) {
    absl::StrAppend(&report, "\n## Through the server\n\n", ServerTimingReport(served));
  }

  const json result = {{"config", config_json},
                       {"memory_sweep", memory_entries},
                       {"threshold_sweep", threshold_entries},
                       {"server", served}};
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(json_path, result.dump(2) + "\n"));
  SHARDPLAN_RETURN_IF_ERROR(WriteReport(config.out, report));
  return args.Has("check") ? CheckResults(json_path, result, violations) : absl::OkStatus();
}

Command OperSweepsCommand() {
  return Command{
      .group = "bench",
      .name = "oper_sweeps",
      .summary = "OPER's communication by extra memory, balance and time by threshold, served",
      .description =
          "See docs/benchmarks.md, \"OPER's communication, balance and planning "
          "time\".\nResults go to OUT.md and OUT.json.\n",
      .flags =
          {
              {"dataset", "FILE", "data set spec", "data/datasets/criteo_kaggle.json"},
              {"topologies", "HxL,...", "hosts x devices per host", "1x8,2x4"},
              {"objectives", "O,...", "inference, training", "inference,training"},
              {"exponents", "S,...", "Zipf exponents (every table the same)", "1.05,0.8"},
              {"extras", "X,...", "extra memory, shares of the footprint, ascending",
               "0,0.01,0.05,0.1"},
              {"thresholds", "T,...", "thresholds of the balance sweep",
               "0.05,0.01,0.005,0.001,0.0005,0.0001,0.00001"},
              {"device-memory-gib", "G", "memory of every device", "40"},
              {"batch-size", "B", "global batch", "16384"},
              {"sim-profile", "P", "simulator profile of the step time; none: no simulation",
               "a100-sxm4"},
              {"server-rounds", "N", "interleaved rounds through a real server; 0: none", "10"},
              {"models-dir", "DIR", "the server's --models_dir", "models"},
              {"out", "PREFIX", "where the results go (.md, .json)", "bench/results/oper_sweeps"},
              {"fresh", "", "ignore the results of a previous run", ""},
              {"check", "", "fail when communication grows with memory (see --help)", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::OperSweepsCommand(), argc, argv);
}
