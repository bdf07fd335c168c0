// ablation: NeuroShard's ablation study (paper section 4.4, Table 3 for 4 devices; appendix G,
// Table 7 for 8) on this repository's pieces. For every device count at one max dim it draws
// the same --tasks seeded tasks as reproduce_table1 (GenerateTask(pool, {devices, max_dim},
// seed, i), plan seed seed + i), plans each with neuroshard under the shipped neural model with
// one part of the search switched off per row (beam search, grid search, cost cache) and once
// in full, and scores every plan on ground truth (the rtx2080ti simulator, noise off). The
// "full NeuroShard" row is reproduce_table1's neuroshard row at the same setting.
// docs/benchmarks.md explains the output.
//
//   build/bench/ablation [--devices 4,8] [--max-dim 128] [--tasks 100] [--seed 0]
//       [--pool data/table_pool/dlrm_856.json] [--models-dir models] [--model sim-rtx2080ti@2]
//       [--table1 bench/results/table1.json] [--out bench/results/ablation] [--fresh]
//
// (setting, row) pairs already in --out.json with the same configuration are reused (resume);
// --fresh recomputes everything.
#include <atomic>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "groundtruth/ground_truth.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr char kNeuroShard[] = "neuroshard";
constexpr char kFullRow[] = "full NeuroShard";

// The paper's numbers for one row: cost (ms, "-" when some task failed), success, sharding
// time (s), cache hit rate.
struct PaperValues {
  const char* cost;
  const char* success;
  const char* time_s;
  const char* hit_rate;
};

// One row: neuroshard with one parameter switched off (none for the full search).
struct Row {
  const char* label;
  std::map<std::string, std::string> params;
  PaperValues table3;  // 4 GPUs
  PaperValues table7;  // 8 GPUs
};

// Every row, the full search included, is the reference's search: without the baseline
// portfolio (baselines=false), which would hide what a row ablates behind a greedy's plan.
const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"w/o beam search",
       {{"beam_search", "false"}, {"baselines", "false"}},
       {"-", "87.0%", "0.05", "79.1%"},
       {"-", "63.0%", "0.09", "75.4%"}},
      {"w/o greedy grid search",
       {{"grid_search", "false"}, {"baselines", "false"}},
       {"42.90", "100.0%", "2.12", "82.2%"},
       {"55.97", "100.0%", "4.09", "79.8%"}},
      {"w/o caching",
       {{"cost_cache", "false"}, {"baselines", "false"}},
       {"39.99", "100.0%", "95.87", "0.0%"},
       {"49.10", "100.0%", "164.21", "0.0%"}},
      {kFullRow,
       {{"baselines", "false"}},
       {"39.99", "100.0%", "10.75", "95.4%"},
       {"49.10", "100.0%", "20.79", "93.0%"}},
  };
  return rows;
}

// The paper's values for `row` at `devices`, if the paper has that setting.
std::optional<PaperValues> Paper(const Row& row, int devices) {
  if (devices == 4) return row.table3;
  if (devices == 8) return row.table7;
  return std::nullopt;
}

struct Config {
  std::vector<int> devices;
  int max_dim = 0;
  int tasks = 0;
  uint64_t seed = 0;
  std::string pool;
  std::string model;
  std::string out;
};

json ConfigJson(const Config& config) {
  json rows = json::array();
  for (const Row& row : Rows()) rows.push_back({{"label", row.label}, {"params", row.params}});
  return {{"tasks", config.tasks},
          {"seed", config.seed},
          {"pool", config.pool},
          {"model", config.model},
          {"max_dim", config.max_dim},
          {"algorithm", kNeuroShard},
          {"ground_truth", absl::StrCat("sim-", kGroundTruthProfile, ", noise 0")},
          {"rows", rows}};
}

std::string EntryKey(int devices, const std::string& row) {
  return absl::StrCat(devices, "/", row);
}

// One task of one row: plan, ground truth and the search's counters.
json RunTask(const Algorithm& planner, const Row& row, const Task& task, const CostModel& model,
             uint64_t plan_seed, HardwareBackend& ground_truth) {
  PlanTaskOptions options;
  options.seed = plan_seed;
  options.params = row.params;
  TimedPlan timed = PlanAndTime(planner, task, model, options);
  json r = {{"ok", false}, {"planning_ms", timed.planning_ms}};
  absl::StatusOr<HardwarePlanCost> truth =
      timed.plan.ok() ? ScorePlanOnHardware(task, *timed.plan, ground_truth)
                      : timed.plan.status();
  if (!truth.ok()) {
    r["error"] = truth.status().ToString();
    return r;
  }
  const SearchStats& stats = timed.plan->stats;
  r["ok"] = true;
  r["cost_ms"] = truth->cost_ms;
  r["planning_model_cost_ms"] = timed.plan->cost_ms;
  r["cache_hits"] = stats.cost_cache_hits;
  r["cache_misses"] = stats.cost_cache_misses;
  r["cost_model_calls"] = stats.cost_model_calls;
  r["candidates_evaluated"] = stats.candidates_evaluated;
  r["column_splits"] = timed.plan->stats.column_splits.size();
  return r;
}

// Per row and setting: mean ground-truth cost (null unless every task succeeded, as the paper)
// and over the successful tasks, success rate, planning times, cache hit rates (pooled over the
// successful tasks' lookups, and the mean of the per-task rates), mean model calls and
// candidates per successful plan.
json Summarize(const json& tasks) {
  std::vector<double> costs, times, task_hit_rates, calls, candidates;
  int64_t hits = 0, misses = 0;
  for (const json& r : tasks) {
    times.push_back(r["planning_ms"].get<double>());
    if (!r["ok"].get<bool>()) continue;
    costs.push_back(r["cost_ms"].get<double>());
    const int64_t h = r["cache_hits"].get<int64_t>(), m = r["cache_misses"].get<int64_t>();
    hits += h;
    misses += m;
    if (h + m > 0) task_hit_rates.push_back(static_cast<double>(h) / (h + m));
    calls.push_back(r["cost_model_calls"].get<double>());
    candidates.push_back(r["candidates_evaluated"].get<double>());
  }
  const size_t n = tasks.size();
  const bool all = n > 0 && costs.size() == n;
  return {{"mean_cost_ms", all ? json(Mean(costs)) : json(nullptr)},
          {"mean_cost_ok_ms", costs.empty() ? json(nullptr) : json(Mean(costs))},
          {"success_rate", n > 0 ? static_cast<double>(costs.size()) / n : 0.0},
          {"median_planning_ms", Median(times)},
          {"mean_planning_ms", Mean(times)},
          {"cache_hit_rate", hits + misses > 0 ? json(static_cast<double>(hits) / (hits + misses))
                                               : json(nullptr)},
          {"mean_task_cache_hit_rate",
           task_hit_rates.empty() ? json(nullptr) : json(Mean(task_hit_rates))},
          {"mean_cost_model_calls", Mean(calls)},
          {"mean_candidates_evaluated", Mean(candidates)}};
}

std::string Percent(const json& value) {
  return value.is_null() ? "-" : absl::StrFormat("%.1f%%", 100 * value.get<double>());
}

// Table 1's neuroshard mean cost at (devices, max_dim) from reproduce_table1's JSON, when that
// run drew the same tasks under the same model; null otherwise.
json Table1Cost(const json& table1, const Config& config, int devices) {
  if (!table1.is_object() || !table1.contains("config")) return nullptr;
  const json& c = table1["config"];
  if (c.value("tasks", -1) != config.tasks || c.value("seed", json()) != json(config.seed) ||
      c.value("pool", "") != config.pool || c.value("model", "") != config.model) {
    return nullptr;
  }
  for (const json& setting : table1.value("settings", json::array())) {
    if (setting["devices"] == devices && setting["max_dim"] == config.max_dim) {
      return setting["summary"].value(kNeuroShard, json::object()).value("mean_cost_ms", json());
    }
  }
  return nullptr;
}

std::string Report(const Config& config, const std::map<std::string, json>& entries,
                   const json& table1) {
  std::string out = absl::StrFormat(
      "# NeuroShard ablation (paper Tables 3 and 7)\n\n%d tasks per setting, seed %d, pool %s, "
      "max dim %d, neuroshard planning under %s; the tasks of reproduce_table1 at the same "
      "setting. Ground truth: sim-%s, noise off (ScorePlanOnHardware). \"-\": at least one task "
      "failed. Times are PlanTask planning times in ms (the paper's are seconds on its "
      "machine; compare the ratios between rows).\n",
      config.tasks, config.seed, config.pool, config.max_dim, config.model, kGroundTruthProfile);
  std::string failures;
  for (int devices : config.devices) {
    const json* full = nullptr;
    if (auto it = entries.find(EntryKey(devices, kFullRow)); it != entries.end()) {
      full = &it->second["summary"];
    }
    absl::StrAppend(
        &out, "\n## ", devices, " devices, max dim ", config.max_dim,
        devices == 4 ? " (paper: Table 3)" : devices == 8 ? " (paper: Table 7)" : "",
        "\n\n| row | mean cost ms | mean cost ms, successful tasks | success | median ms | mean "
        "ms | mean ms / full | cache hit rate | mean per-task hit rate | model calls / plan | "
        "candidates / plan | paper cost ms | paper success | paper time s | paper hit rate |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const Row& row : Rows()) {
      auto it = entries.find(EntryKey(devices, row.label));
      if (it == entries.end()) continue;
      const json& s = it->second["summary"];
      const std::optional<PaperValues> paper = Paper(row, devices);
      const json ratio =
          full != nullptr && (*full)["mean_planning_ms"].get<double>() > 0
              ? json(s["mean_planning_ms"].get<double>() / (*full)["mean_planning_ms"].get<double>())
              : json(nullptr);
      absl::StrAppend(
          &out,
          absl::StrFormat("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                          "| %s |\n",
                          row.label, NumberOrDash(s["mean_cost_ms"]), NumberOrDash(s["mean_cost_ok_ms"]),
                          Percent(s["success_rate"]), NumberOrDash(s["median_planning_ms"], "%.1f"),
                          NumberOrDash(s["mean_planning_ms"], "%.1f"), NumberOrDash(ratio, "%.3gx"),
                          Percent(s["cache_hit_rate"]), Percent(s["mean_task_cache_hit_rate"]),
                          NumberOrDash(s["mean_cost_model_calls"], "%.0f"),
                          NumberOrDash(s["mean_candidates_evaluated"], "%.1f"),
                          paper ? paper->cost : "", paper ? paper->success : "",
                          paper ? paper->time_s : "", paper ? paper->hit_rate : ""));
      for (const json& task : it->second["tasks"]) {
        if (task["ok"].get<bool>()) continue;
        absl::StrAppend(&failures, "- ", row.label, " at ", devices, " / ", config.max_dim,
                        ", task ", task["index"].get<int>(), ": ",
                        task["error"].get<std::string>(), "\n");
        break;
      }
    }
    const json table1_cost = Table1Cost(table1, config, devices);
    if (!table1_cost.is_null() && full != nullptr) {
      absl::StrAppend(&out, "\nreproduce_table1's neuroshard at ", devices, " / ", config.max_dim,
                      ": ", NumberOrDash(table1_cost), " ms (", kFullRow, " here: ",
                      NumberOrDash((*full)["mean_cost_ms"]), " ms).\n");
    }
  }
  if (!failures.empty()) absl::StrAppend(&out, "\n## First failure per row\n\n", failures);
  return out;
}

absl::Status Run(const OptionValues& args) {
  Config config;
  SHARDPLAN_ASSIGN_OR_RETURN(config.devices, IntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_dim, args.GetInt("max-dim"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t tasks, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.seed, args.GetUint("seed"));
  if (tasks < 1) return UsageError("--tasks must be >= 1");
  if (max_dim < 4 || max_dim > 4096 || DimGrid(static_cast<int32_t>(max_dim)).empty()) {
    return UsageError("--max-dim must be a positive multiple of 4");
  }
  config.max_dim = static_cast<int>(max_dim);
  config.tasks = static_cast<int>(tasks);
  config.pool = args.Get("pool");
  config.model = args.Get("model");
  config.out = args.Get("out");

  SHARDPLAN_ASSIGN_OR_RETURN(const offline::LoadedPool pool,
                             offline::LoadPoolWithHash(config.pool));
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel model, models.Resolve(config.model));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* const planner, algorithms.Find(kNeuroShard));

  const json config_json = ConfigJson(config);
  const std::string json_path = config.out + ".json";
  std::map<std::string, json> previous;
  if (!args.Has("fresh")) {
    previous = PreviousEntries(json_path, config_json, "results", [](const json& entry) {
      return EntryKey(entry["devices"].get<int>(), entry["row"].get<std::string>());
    });
  }
  const std::atomic<bool>* stop = offline::InstallStopOnSignal();

  std::map<std::string, json> entries;  // by EntryKey
  json results = json::array();
  auto write = [&] {
    const json doc = {{"config", config_json}, {"results", results}};
    return offline::WriteTextFile(json_path, doc.dump(1) + "\n");
  };
  Progress progress(static_cast<int>(config.devices.size() * Rows().size()) * config.tasks);
  for (int devices : config.devices) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> ground_truth,
                               MakeGroundTruth(devices));
    TaskGenOptions options;
    options.num_devices = devices;
    options.max_dim = config.max_dim;
    for (const Row& row : Rows()) {
      const std::string key = EntryKey(devices, row.label);
      const std::string label = absl::StrCat(devices, "/", config.max_dim, " ", row.label);
      if (auto it = previous.find(key); it != previous.end()) {
        std::cerr << "[" << label << "] reused from " << json_path << "\n";
        progress.Reuse(config.tasks);
        entries[key] = it->second;
        results.push_back(it->second);
        continue;
      }
      json task_results = json::array();
      for (int i = 0; i < config.tasks; ++i) {
        if (stop->load()) return InterruptedError("interrupted; rerun to resume");
        // As reproduce_table1: task i of a setting is (seed, i), planned with seed + i.
        SHARDPLAN_ASSIGN_OR_RETURN(const Task task,
                                   GenerateTask(pool.pool, options, config.seed, i));
        json r = RunTask(*planner, row, task, *model.model, config.seed + i, *ground_truth);
        r["index"] = i;
        r["num_tables"] = task.tables.size();
        task_results.push_back(std::move(r));
        progress.Step(label, i + 1, config.tasks);
      }
      std::cerr << "\n";
      json entry = {{"devices", devices},
                    {"max_dim", config.max_dim},
                    {"row", row.label},
                    {"summary", Summarize(task_results)},
                    {"tasks", std::move(task_results)}};
      entries[key] = entry;
      results.push_back(std::move(entry));
      // After every (setting, row), so an interrupted run resumes from here.
      SHARDPLAN_RETURN_IF_ERROR(write());
    }
  }
  SHARDPLAN_RETURN_IF_ERROR(write());
  json table1;
  if (std::ifstream in(args.Get("table1")); in) {
    table1 = json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  const std::string report = Report(config, entries, table1);
  return WriteReport(config.out, report);
}

Command AblationCommand() {
  return Command{
      .group = "bench",
      .name = "ablation",
      .summary = "NeuroShard Tables 3 and 7: the search without beam search, grid search or "
                 "the cost cache",
      .description = "See docs/benchmarks.md.\n",
      .flags =
          {
              {"devices", "N,...", "device counts (the paper: 4 in Table 3, 8 in Table 7)", "4,8"},
              {"max-dim", "D", "max table dim", "128"},
              {"tasks", "N", "tasks per setting", "100"},
              {"seed", "S", "task seed (as reproduce_table1's)", "0"},
              {"pool", "FILE", "table pool", offline::kDefaultPool},
              {"models-dir", "DIR", "model bundles", "models"},
              {"model", "NAME@VERSION", "cost model neuroshard plans under", "sim-rtx2080ti@2"},
              {"table1", "FILE",
               "reproduce_table1's JSON, to show its neuroshard cost next to the full row",
               "bench/results/table1.json"},
              {"out", "PREFIX", "writes PREFIX.json and PREFIX.md", "bench/results/ablation"},
              {"fresh", "", "ignore the results of a previous run", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::AblationCommand(), argc, argv);
}
