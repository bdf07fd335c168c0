// reproduce_table1: NeuroShard's Table 1 (paper section 4.1, appendix D Table 5) on this
// repository's pieces. For every (devices, max dim) setting it draws --tasks seeded tasks from
// the table pool (GenerateTask: the reference's gen_tasks, 4 GiB per device), plans each with
// every requested algorithm through PlanTask under the shipped neural model (the "simulated"
// cost; AutoShard and DreamShard with their newest policy for the model's hardware profile),
// and scores every plan on ground truth (ScorePlanOnHardware): the rtx2080ti simulator
// with noise off, or with --ground-truth cpu a measurement on this machine's CPU (CpuBackend,
// compute only) of plans made under a cpu-trained model. docs/benchmarks.md explains the output.
//
//   build/bench/reproduce_table1 [--devices 4,8] [--max-dims 4,8,16,32,64,128] [--tasks 100]
//       [--seed 0] [--pool data/table_pool/dlrm_856.json] [--models-dir models]
//       [--model sim-rtx2080ti@2] [--algorithms
//       random,...,torchrec,autoshard,dreamshard,neuroshard]
//       [--analytic-row neuroshard] [--autoshard-reference-row] [--ground-truth sim|cpu]
//       [--out bench/results/table1]
//       [--fresh]
//
// Settings already in --out.json with the same configuration are reused (resume); --fresh
// recomputes everything.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "costmodels/model_registry.h"
#include "groundtruth/cpu/cpu_backend.h"
#include "groundtruth/ground_truth.h"
#include "lab/data/generators.h"
#include "lab/tools/offline_command.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/evaluation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr char kAnalyticModel[] = "analytic@1";
// The --analytic-row algorithm planned under kAnalyticModel is labelled <algorithm> + this: by
// default "neuroshard-analytic", NeuroShard's search with its neural cost models ablated.
constexpr char kAnalyticRowSuffix[] = "-analytic";
constexpr char kNeuroShard[] = "neuroshard";
// --search-only-row: NeuroShard with baselines=false, labelled "neuroshard-search-only".
constexpr char kSearchOnlySuffix[] = "-search-only";
// --ground-truth cpu generates its tasks at the cpu backend's batch: the cpu-amd-epyc cost data
// (and so the cpu model) was collected at CpuBackendOptions' default batch of 2048, because the
// reference's 65536 takes seconds per measurement on a CPU (docs/cpu-backend.md). Planning and
// measuring at that batch keeps the model, the analytic estimators and the measurement on the
// same workload.
constexpr int64_t kCpuBatchSize = CpuBackendOptions{}.batch_size;
// The paper's Table 1 baselines. "The strongest baseline" is the best of these rows; other rows
// (the analytic ablation of NeuroShard, the reference-behaviour AutoShard row, any extra
// --algorithms) never count as baselines.
constexpr const char* kPaperBaselines[] = {"random",        "size_greedy",        "dim_greedy",
                                           "lookup_greedy", "size_lookup_greedy", "torchrec",
                                           "autoshard",     "dreamshard"};
// --autoshard-reference-row: AutoShard as its reference code runs, without the memory mask the
// service adds (mask_memory=false), whose over-full plans are the paper's "failing memory".
constexpr char kAutoShard[] = "autoshard";
constexpr char kReferenceSuffix[] = "-reference";

// One row of the table: an algorithm planned under a cost model.
struct Row {
  std::string label;
  std::string algorithm;
  std::string model;  // name@version
  std::map<std::string, std::string> params;  // the algorithm's, as a caller would give them
  const Algorithm* planner = nullptr;
  std::shared_ptr<const CostModel> cost_model;
  // For a learned planner: the newest policy <algorithm>-<the model's hardware profile> under
  // --models-dir (e.g. autoshard-sim-rtx2080ti).
  std::shared_ptr<const Policy> policy;
};

enum class GroundTruth { kSim, kCpu };

// The cpu ground truth: CpuBackend, except that a device with no shards costs 0 ms. CpuBackend
// refuses an empty measurement ("no tables to measure"), but a plan may leave a device empty
// (random does), and a CPU that holds no table does no embedding work: the simulator already
// gives such a device 0 ms. Answered here rather than in ScorePlanOnHardware, which must keep
// asking the backend so that a noisy simulator's noise stream stays as it is.
class CpuGroundTruth final : public HardwareBackend {
 public:
  CpuBackend& cpu() { return cpu_; }
  std::string name() const override { return cpu_.name(); }
  std::string hardware_profile() const override { return cpu_.hardware_profile(); }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override {
    if (tables.empty()) return 0.0;
    return cpu_.MeasureCompute(tables, batch_size);
  }
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology* topology,
                                              std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t batch_size) override {
    return cpu_.MeasureComm(topology, dim_sums, start_offsets_ms, batch_size);
  }

 private:
  CpuBackend cpu_;
};

struct Config {
  GroundTruth ground_truth = GroundTruth::kSim;
  std::string sim_profile = kGroundTruthProfile;  // with kSim: the simulator's hardware profile
  // With kCpu: what ConfigJson and the report say about the measurement.
  std::string cpu_description;
  std::vector<int> devices;
  std::vector<int> max_dims;
  int tasks = 0;
  uint64_t seed = 0;
  std::string pool;
  std::string model;  // the neural model every plan is also predicted by
  std::string out;
};

// The rows to run; names not registered (neuroshard before it lands) are skipped with a note.
absl::StatusOr<std::vector<Row>> ResolveRows(const OptionValues& args,
                                             const AlgorithmRegistry& algorithms,
                                             const ModelRegistry& models,
                                             std::vector<std::string>& notes) {
  std::vector<Row> rows;
  const std::string model_spec = args.Get("model");
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel model, models.Resolve(model_spec));
  auto add = [&](const std::string& label, const std::string& algorithm,
                 const ResolvedModel& resolved, std::map<std::string, std::string> params = {}) {
    absl::StatusOr<const Algorithm*> planner = algorithms.Find(algorithm);
    if (!planner.ok()) {
      notes.push_back(
          absl::StrCat("skipped ", label, ": algorithm \"", algorithm, "\" is not registered"));
      return;
    }
    std::shared_ptr<const Policy> policy;
    if ((*planner)->info().uses_policy) {
      const std::string name = absl::StrCat(algorithm, "-", model.manifest.hardware_profile);
      absl::StatusOr<std::shared_ptr<const Policy>> loaded =
          LoadLatestPolicy(args.Get("models-dir"), name);
      if (!loaded.ok()) {
        notes.push_back(absl::StrCat("skipped ", label, ": ", loaded.status().message()));
        return;
      }
      policy = *std::move(loaded);
      params["policy"] = policy->id();
    }
    rows.push_back(Row{label, algorithm, resolved.manifest.id(), std::move(params), *planner,
                       resolved.model, std::move(policy)});
  };
  for (const absl::string_view name :
       absl::StrSplit(args.Get("algorithms"), ',', absl::SkipEmpty())) {
    add(std::string(name), std::string(name), model);
  }
  // An ablation, not a baseline: the same search driven by analytic instead of learned costs.
  if (const std::string analytic_row = args.Get("analytic-row"); !analytic_row.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel analytic, models.Resolve(kAnalyticModel));
    add(analytic_row + kAnalyticRowSuffix, analytic_row, analytic);
  }
  if (args.Has("autoshard-reference-row")) {
    add(absl::StrCat(kAutoShard, kReferenceSuffix), kAutoShard, model, {{"mask_memory", "false"}});
  }
  // An ablation: NeuroShard's search alone, without its baseline portfolio (the reference's).
  if (args.Has("search-only-row")) {
    add(absl::StrCat(kNeuroShard, kSearchOnlySuffix), kNeuroShard, model, {{"baselines", "false"}});
  }
  if (rows.empty()) return UsageError("no registered algorithm to run");
  return rows;
}

json ConfigJson(const Config& config, const std::vector<Row>& rows) {
  json row_list = json::array();
  for (const Row& row : rows) {
    json entry = {{"label", row.label}, {"algorithm", row.algorithm}, {"model", row.model}};
    if (!row.params.empty()) entry["params"] = row.params;
    row_list.push_back(std::move(entry));
  }
  json out = {{"tasks", config.tasks},
              {"seed", config.seed},
              {"pool", config.pool},
              {"model", config.model},
              {"ground_truth", absl::StrCat("sim-", config.sim_profile, ", noise 0")},
              {"rows", row_list}};
  if (config.ground_truth == GroundTruth::kCpu) {
    out["ground_truth"] = config.cpu_description;
    out["batch_size"] = kCpuBatchSize;
  }
  return out;
}

// Mean ground-truth and predicted cost (null unless every task succeeded), success rate and
// planning times of one row in one setting.
json Summarize(const json& tasks, const std::string& label) {
  double cost = 0, predicted = 0;
  int ok = 0;
  std::vector<double> times;
  for (const json& task : tasks) {
    const json& r = task["results"][label];
    times.push_back(r["planning_ms"].get<double>());
    if (!r["ok"].get<bool>()) continue;
    ++ok;
    cost += r["cost_ms"].get<double>();
    predicted += r["predicted_cost_ms"].get<double>();
  }
  const int n = static_cast<int>(tasks.size());
  const bool all = n > 0 && ok == n;
  return {{"mean_cost_ms", all ? json(cost / n) : json(nullptr)},
          {"mean_predicted_cost_ms", all ? json(predicted / n) : json(nullptr)},
          {"success_rate", n > 0 ? static_cast<double>(ok) / n : 0.0},
          {"median_planning_ms", Median(times)},
          {"mean_planning_ms",
           times.empty() ? 0.0 : std::accumulate(times.begin(), times.end(), 0.0) / n}};
}

// The paper's "simulated" cost: `plan` under the main neural model, whatever it was planned
// under, so that every row is predicted by the same model.
absl::StatusOr<double> PredictedCost(const Task& task, const Plan& plan, const Row& row,
                                     const CostModel& main_model) {
  if (row.cost_model.get() == &main_model) return plan.cost_ms;
  Plan copy;
  copy.tables = plan.tables;
  SHARDPLAN_RETURN_IF_ERROR(EvaluatePlan(task, main_model, copy));
  return copy.cost_ms;
}

// `on_row(label)` is called before each row is planned and scored (progress of slow runs).
json RunTask(const Task& task, const std::vector<Row>& rows, const CostModel& main_model,
             uint64_t plan_seed, HardwareBackend& ground_truth,
             const std::function<void(const std::string&)>& on_row) {
  json results = json::object();
  for (const Row& row : rows) {
    on_row(row.label);
    PlanTaskOptions options;
    options.seed = plan_seed;
    options.params = row.params;
    options.policy = row.policy.get();
    TimedPlan timed = PlanAndTime(*row.planner, task, *row.cost_model, options);
    absl::StatusOr<Plan>& plan = timed.plan;
    json r = {{"ok", false}, {"planning_ms", timed.planning_ms}};
    absl::StatusOr<HardwarePlanCost> truth =
        plan.ok() ? ScorePlanOnHardware(task, *plan, ground_truth) : plan.status();
    absl::StatusOr<double> predicted =
        truth.ok() ? PredictedCost(task, *plan, row, main_model) : truth.status();
    if (!predicted.ok()) {
      r["error"] = predicted.status().ToString();
    } else {
      r["ok"] = true;
      r["cost_ms"] = truth->cost_ms;
      r["predicted_cost_ms"] = *predicted;
      r["planning_model_cost_ms"] = plan->cost_ms;
      r["comm_measured"] = truth->comm_measured;
      if (plan->stats.cost_cache_hits + plan->stats.cost_cache_misses > 0) {
        r["cache_hits"] = plan->stats.cost_cache_hits;
        r["cache_misses"] = plan->stats.cost_cache_misses;
      }
    }
    results[row.label] = std::move(r);
  }
  return results;
}

std::string Cost(const json& value) { return NumberOrDash(value, "%.2f"); }

// The paper's layout as a markdown table: rows = algorithms, columns = devices / max dim.
std::string CostTable(const Config& config, const std::vector<Row>& rows, const json& settings,
                      const std::string& field) {
  std::string header = "| algorithm |", rule = "|---|";
  for (int devices : config.devices) {
    for (int max_dim : config.max_dims) {
      absl::StrAppend(&header, " ", devices, " / ", max_dim, " |");
      absl::StrAppend(&rule, "---:|");
    }
  }
  std::string out = absl::StrCat(header, "\n", rule, "\n");
  for (const Row& row : rows) {
    absl::StrAppend(&out, "| ", row.label, " |");
    for (const json& setting : settings) {
      absl::StrAppend(&out, " ", Cost(setting["summary"][row.label][field]), " |");
    }
    absl::StrAppend(&out, "\n");
  }
  auto has_row = [&](const std::string& label) {
    return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.label == label; });
  };
  if (!has_row(kNeuroShard)) return out;
  auto gain = [](double theirs, double ours) {
    return absl::StrFormat(" %+.1f%% |", (theirs - ours) / ours * 100);
  };
  // The paper's bottom row: (strongest baseline - NeuroShard) / NeuroShard, the strongest
  // baseline being the lowest mean among kPaperBaselines rows that succeeded on every task.
  std::string strongest = "| strongest baseline |";
  std::string improvement = "| improvement of neuroshard over the strongest baseline |";
  for (const json& setting : settings) {
    const json& ours = setting["summary"][kNeuroShard][field];
    std::optional<double> best;
    std::string best_label;
    for (const char* baseline : kPaperBaselines) {
      if (!has_row(baseline)) continue;
      const json& theirs = setting["summary"][baseline][field];
      if (theirs.is_null()) continue;  // "-": some task failed, not a candidate
      if (!best.has_value() || theirs.get<double>() < *best) {
        best = theirs.get<double>();
        best_label = baseline;
      }
    }
    if (!best.has_value()) {
      absl::StrAppend(&strongest, " n/a |");
      absl::StrAppend(&improvement, " n/a (no baseline succeeded on every task) |");
      continue;
    }
    absl::StrAppend(&strongest, " ", best_label, " |");
    absl::StrAppend(&improvement, ours.is_null() ? " - |" : gain(*best, ours.get<double>()));
  }
  absl::StrAppend(&out, strongest, "\n", improvement, "\n");
  // The ablation: the same search under the analytic model instead of the neural ones.
  const std::string ablation = absl::StrCat(kNeuroShard, kAnalyticRowSuffix);
  if (has_row(ablation)) {
    absl::StrAppend(&out, "| improvement of neuroshard over ", ablation,
                    " (neural vs analytic cost model, same search) |");
    for (const json& setting : settings) {
      const json& ours = setting["summary"][kNeuroShard][field];
      const json& theirs = setting["summary"][ablation][field];
      absl::StrAppend(&out, ours.is_null() || theirs.is_null()
                                ? " - |"
                                : gain(theirs.get<double>(), ours.get<double>()));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

// Success rate and planning time per algorithm and device count, over all max dims.
std::string TimeTable(const Config& config, const std::vector<Row>& rows, const json& settings) {
  std::string out =
      "| algorithm | devices | success | median ms | mean ms | median ms at the "
      "largest max dim |\n|---|---:|---:|---:|---:|---:|\n";
  for (const Row& row : rows) {
    for (int devices : config.devices) {
      std::vector<double> times, last_times;
      int ok = 0;
      for (const json& setting : settings) {
        if (setting["devices"] != devices) continue;
        const bool last = setting["max_dim"] == config.max_dims.back();
        for (const json& task : setting["tasks"]) {
          const json& r = task["results"][row.label];
          times.push_back(r["planning_ms"].get<double>());
          if (last) last_times.push_back(times.back());
          ok += r["ok"].get<bool>() ? 1 : 0;
        }
      }
      if (times.empty()) continue;
      absl::StrAppend(
          &out, absl::StrFormat("| %s | %d | %.0f%% | %.3f | %.3f | %.3f |\n", row.label, devices,
                                100.0 * ok / times.size(), Median(times),
                                std::accumulate(times.begin(), times.end(), 0.0) / times.size(),
                                Median(last_times)));
    }
  }
  return out;
}

// Task by task, NeuroShard's ground-truth cost against the cheapest baseline (kPaperBaselines)
// that planned the task: how often and how far it is behind. A mean can hide a loss on one task;
// the held-out target is never more than 1% behind.
std::string PerTaskTable(const std::vector<Row>& rows, const json& settings,
                         const std::string& label = kNeuroShard) {
  const bool has_row =
      std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.label == label; });
  if (!has_row) return absl::StrCat("(no ", label, " row)\n");
  std::string out =
      "| devices / max dim | tasks compared | behind by > 1% | worst (vs that task's best "
      "baseline) | mean margin |\n|---|---:|---:|---|---:|\n";
  for (const json& setting : settings) {
    int compared = 0, behind = 0;
    double worst = -std::numeric_limits<double>::infinity(), margin_sum = 0.0;
    std::string worst_against;
    for (const json& task : setting["tasks"]) {
      const json& mine = task["results"][label];
      if (!mine["ok"].get<bool>()) continue;
      std::optional<double> best;
      std::string best_label;
      for (const char* baseline : kPaperBaselines) {
        if (!task["results"].contains(baseline)) continue;
        const json& theirs = task["results"][baseline];
        if (!theirs["ok"].get<bool>()) continue;
        if (!best.has_value() || theirs["cost_ms"].get<double>() < *best) {
          best = theirs["cost_ms"].get<double>();
          best_label = baseline;
        }
      }
      if (!best.has_value()) continue;
      const double loss = mine["cost_ms"].get<double>() / *best - 1.0;  // > 0: behind
      ++compared;
      behind += loss > 0.01 ? 1 : 0;
      margin_sum += -loss;
      if (loss > worst) {
        worst = loss;
        worst_against = absl::StrCat(best_label, ", task ", task["index"].get<int>());
      }
    }
    absl::StrAppend(&out, absl::StrFormat("| %d / %d | %d | %d |", setting["devices"].get<int>(),
                                          setting["max_dim"].get<int>(), compared, behind));
    if (compared == 0) {
      absl::StrAppend(&out, " - | - |\n");
      continue;
    }
    absl::StrAppend(&out, absl::StrFormat(" %+.1f%% (%s) | %+.1f%% |\n", 100 * worst, worst_against,
                                          100 * margin_sum / compared));
  }
  absl::StrAppend(&out,
                  absl::StrCat("\nA task counts where ", label,
                               " and at least one baseline planned it; worst: its cost over the "
                               "cheapest baseline's minus 1 (positive: behind); mean margin: the "
                               "mean of (best - ",
                               label, ") / best.\n"));
  return out;
}

// What the rows and the improvement lines mean, for the report's notes.
std::vector<std::string> RowNotes(const std::vector<Row>& rows) {
  std::vector<std::string> notes;
  std::vector<std::string> baselines;
  for (const char* baseline : kPaperBaselines) {
    for (const Row& row : rows) {
      if (row.label == baseline) baselines.push_back(row.label);
    }
  }
  for (const Row& row : rows) {
    if (row.label == "torchrec") {
      notes.push_back(
          "torchrec: TorchRec's planner (planner/algorithms/torchrec/, docs/torchrec-planner.md); "
          "it "
          "plans with its own analytic estimator, not with the request's cost model");
    } else if (row.policy != nullptr) {
      notes.push_back(absl::StrCat(
          row.label, ": ", row.algorithm, " with the learned policy ", row.policy->id(), " (docs/",
          row.algorithm,
          ".md); it places tables with its own networks, not with the "
          "request's cost model",
          row.label == row.algorithm
              ? ""
              : ", without the service's memory mask (mask_memory=false), as the reference code "
                "runs: a plan that overfills a device fails. Not a baseline"));
    } else if (!row.params.empty()) {
      notes.push_back(absl::StrCat(row.label, ": ", row.algorithm, " under ", row.model, " with ",
                                   absl::StrJoin(row.params, ", ", absl::PairFormatter("=")),
                                   ": NeuroShard's search alone, without the baselines' plans it "
                                   "also costs (the reference's search). An ablation"));
    } else if (row.label != row.algorithm) {
      notes.push_back(absl::StrCat(
          row.label, ": ", row.algorithm, " planned under ", row.model,
          row.algorithm == kNeuroShard
              ? ", i.e. NeuroShard's search with the neural cost models ablated. An ablation of "
                "NeuroShard, not a baseline"
              : ". Not a baseline"));
    }
  }
  const bool has_neuroshard =
      std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.label == kNeuroShard; });
  if (!has_neuroshard) return notes;
  notes.push_back(absl::StrCat(
      "improvement of neuroshard over the strongest baseline: (best - neuroshard) / neuroshard, "
      "best being the lowest mean among the paper's baselines run here (",
      baselines.empty() ? "none" : absl::StrJoin(baselines, ", "),
      ") that succeeded on every task of the setting; the \"strongest baseline\" line names it. "
      "\"n/a\": no baseline succeeded on every task; \"-\": neuroshard failed a task"));
  const std::string ablation = absl::StrCat(kNeuroShard, kAnalyticRowSuffix);
  if (std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.label == ablation; })) {
    notes.push_back(absl::StrCat(
        "improvement of neuroshard over ", ablation, ": (", ablation,
        " - neuroshard) / neuroshard, what the neural cost models add to the same search; ",
        ablation, " is not counted as a baseline. \"-\": either row failed a task"));
  }
  return notes;
}

std::string Report(const Config& config, const std::vector<Row>& rows, const json& settings,
                   const std::vector<std::string>& notes) {
  std::string out;
  if (config.ground_truth == GroundTruth::kSim) {
    out = absl::StrFormat(
        "# NeuroShard Table 1 reproduction\n\n%d tasks per setting, seed %d, pool %s; columns "
        "are devices / max dim. Ground truth: sim-%s, noise off (ScorePlanOnHardware). \"-\": at "
        "least one task failed.\n\n",
        config.tasks, config.seed, config.pool, config.sim_profile);
  } else {
    int compute_only = 0, scored = 0;
    for (const json& setting : settings) {
      for (const json& task : setting["tasks"]) {
        for (const auto& [label, r] : task["results"].items()) {
          if (!r["ok"].get<bool>()) continue;
          ++scored;
          compute_only += r["comm_measured"].get<bool>() ? 0 : 1;
        }
      }
    }
    out = absl::StrFormat(
        "# NeuroShard Table 1 reproduction, scored on the CPU (compute only)\n\n%d tasks per "
        "setting, seed %d, pool %s, batch %d; columns are devices / max dim. Plans made under "
        "%s. Ground truth: measured on this machine's CPU (ScorePlanOnHardware on %s). The "
        "costs are **compute only**: a CPU has no interconnect, so both all-to-all terms are 0 "
        "(comm_measured false for %d of the %d scored plans); a plan's cost is its slowest "
        "device's measured compute. \"-\": at least one task failed.\n\n",
        config.tasks, config.seed, config.pool, kCpuBatchSize, config.model, config.cpu_description,
        compute_only, scored);
  }
  absl::StrAppend(&out,
                  config.ground_truth == GroundTruth::kSim
                      ? "## Mean ground-truth cost (ms)\n\n"
                      : "## Mean ground-truth cost (ms; CPU-measured compute, no comm)\n\n",
                  CostTable(config, rows, settings, "mean_cost_ms"));
  absl::StrAppend(&out, "\n## Mean cost predicted by ", config.model, " (\"simulated\", ms)\n\n",
                  CostTable(config, rows, settings, "mean_predicted_cost_ms"));
  absl::StrAppend(&out, "\n## NeuroShard per task against the best baseline\n\n",
                  PerTaskTable(rows, settings));
  const std::string search_only = absl::StrCat(kNeuroShard, kSearchOnlySuffix);
  if (std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.label == search_only; })) {
    absl::StrAppend(&out,
                    "\n## NeuroShard's search alone (baselines=false) per task against the "
                    "best baseline\n\n",
                    PerTaskTable(rows, settings, search_only));
  }
  absl::StrAppend(&out, "\n## Success rate and planning time\n\n",
                  TimeTable(config, rows, settings));
  // The first failure of each row, so a "-" can be explained.
  std::string failures;
  for (const Row& row : rows) {
    for (const json& setting : settings) {
      const json* failed = nullptr;
      for (const json& task : setting["tasks"]) {
        if (!task["results"][row.label]["ok"].get<bool>()) failed = &task;
        if (failed != nullptr) break;
      }
      if (failed == nullptr) continue;
      absl::StrAppend(&failures, "- ", row.label, " at ", setting["devices"].get<int>(), " / ",
                      setting["max_dim"].get<int>(), ", task ", (*failed)["index"].get<int>(), ": ",
                      (*failed)["results"][row.label]["error"].get<std::string>(), "\n");
      break;
    }
  }
  if (!failures.empty()) absl::StrAppend(&out, "\n## First failure per algorithm\n\n", failures);
  std::vector<std::string> all_notes = RowNotes(rows);
  all_notes.insert(all_notes.end(), notes.begin(), notes.end());
  if (!all_notes.empty()) {
    absl::StrAppend(&out, "\n## Notes\n\n- ", absl::StrJoin(all_notes, "\n- "), "\n");
  }
  return out;
}

// The settings of a previous run of the same configuration, by "devices/max_dim".
std::map<std::string, json> PreviousSettings(const std::string& path, const json& config) {
  return PreviousEntries(path, config, "settings", [](const json& setting) {
    return absl::StrCat(setting["devices"].get<int>(), "/", setting["max_dim"].get<int>());
  });
}

absl::Status Run(const OptionValues& args) {
  Config config;
  SHARDPLAN_ASSIGN_OR_RETURN(config.devices, IntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.max_dims, IntList(args, "max-dims"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t tasks, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.seed, args.GetUint("seed"));
  if (tasks < 1) return UsageError("--tasks must be >= 1");
  config.tasks = static_cast<int>(tasks);
  config.pool = args.Get("pool");
  config.model = args.Get("model");
  config.out = args.Get("out");
  if (const std::string ground_truth = args.Get("ground-truth"); ground_truth == "cpu") {
    config.ground_truth = GroundTruth::kCpu;
  } else if (absl::StartsWith(ground_truth, "sim:") && ground_truth.size() > 4) {
    config.sim_profile = ground_truth.substr(4);
  } else if (ground_truth != "sim") {
    return UsageError(
        absl::StrCat("--ground-truth must be sim, sim:PROFILE or cpu, not '", ground_truth, "'"));
  }
  for (int max_dim : config.max_dims) {
    if (DimGrid(max_dim).empty()) return UsageError("--max-dims must be multiples of 4");
  }

  SHARDPLAN_ASSIGN_OR_RETURN(const offline::LoadedPool pool,
                             offline::LoadPoolWithHash(config.pool));
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  std::vector<std::string> notes;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<Row> rows,
                             ResolveRows(args, algorithms, models, notes));
  for (const std::string& note : notes) std::cerr << "note: " << note << "\n";
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel main, models.Resolve(config.model));
  const CostModel* main_model = main.model.get();
  // The cpu ground truth is measured once per device (no comm), reused for every device count.
  std::unique_ptr<CpuGroundTruth> cpu;
  if (config.ground_truth == GroundTruth::kCpu) {
    if (main.manifest.backend != "cpu") {
      return UsageError(absl::StrCat(
          "--ground-truth cpu needs a --model trained on cpu data (e.g. --model cpu-amd-epyc@2); ",
          main.manifest.id(), " was trained on ",
          main.manifest.backend.empty() ? "no data (analytic)" : main.manifest.backend + " data"));
    }
    cpu = std::make_unique<CpuGroundTruth>();
    const CpuBackendOptions& o = cpu->cpu().options();
    config.cpu_description = absl::StrFormat(
        "cpu backend, profile %s, %d thread%s, median of %d repetitions after %d warm-up, "
        "batch %d, a device without shards 0 ms; compute only (no interconnect)",
        cpu->hardware_profile(), o.threads, o.threads == 1 ? "" : "s", o.repetitions, o.warmup,
        kCpuBatchSize);
    if (cpu->hardware_profile() != main.manifest.hardware_profile) {
      notes.push_back(absl::StrCat(main.manifest.id(), " was trained on ",
                                   main.manifest.hardware_profile,
                                   " but the ground truth is "
                                   "measured on ",
                                   cpu->hardware_profile()));
      std::cerr << "note: " << notes.back() << "\n";
    }
  }

  const json config_json = ConfigJson(config, rows);
  const std::string json_path = config.out + ".json";
  std::map<std::string, json> previous;
  if (!args.Has("fresh")) previous = PreviousSettings(json_path, config_json);
  const std::atomic<bool>* stop = offline::InstallStopOnSignal();

  json settings = json::array();
  const int total = static_cast<int>(config.devices.size() * config.max_dims.size()) * config.tasks;
  Progress progress(total);
  auto write = [&] {
    const json doc = {{"config", config_json}, {"notes", notes}, {"settings", settings}};
    return offline::WriteTextFile(json_path, doc.dump(1) + "\n");
  };
  for (int devices : config.devices) {
    std::unique_ptr<HardwareBackend> sim;
    if (!cpu) {
      SHARDPLAN_ASSIGN_OR_RETURN(sim, MakeGroundTruth(devices, config.sim_profile));
    }
    HardwareBackend& ground_truth = cpu ? static_cast<HardwareBackend&>(*cpu) : *sim;
    for (int max_dim : config.max_dims) {
      const std::string key = absl::StrCat(devices, "/", max_dim);
      if (auto it = previous.find(key); it != previous.end()) {
        std::cerr << "[" << key << "] reused from " << json_path << "\n";
        settings.push_back(it->second);
        progress.Reuse(config.tasks);
        continue;
      }
      TaskGenOptions options;
      options.num_devices = devices;
      options.max_dim = max_dim;
      if (cpu) options.batch_size = kCpuBatchSize;
      json task_results = json::array();
      for (int i = 0; i < config.tasks; ++i) {
        if (stop->load()) return InterruptedError("interrupted; rerun to resume");
        // Index i of every setting draws from (seed, i): the same T and pool ids at every max
        // dim (until a memory resample), so columns differ mainly by the dims.
        SHARDPLAN_ASSIGN_OR_RETURN(const Task task,
                                   GenerateTask(pool.pool, options, config.seed, i));
        // A cpu-scored task takes tens of seconds: say which row it is at.
        auto on_row = [&](const std::string& label) {
          if (cpu) progress.Working(key, i + 1, config.tasks, label);
        };
        task_results.push_back(
            {{"index", i},
             {"num_tables", task.tables.size()},
             {"results", RunTask(task, rows, *main_model, config.seed + i, ground_truth, on_row)}});
        progress.Step(key, i + 1, config.tasks);
      }
      std::cerr << "\n";
      json setting = {{"devices", devices}, {"max_dim", max_dim}, {"tasks", task_results}};
      json summary = json::object();
      for (const Row& row : rows) summary[row.label] = Summarize(task_results, row.label);
      setting["summary"] = std::move(summary);
      settings.push_back(std::move(setting));
      // After every setting, so an interrupted run resumes from here.
      SHARDPLAN_RETURN_IF_ERROR(write());
    }
  }
  SHARDPLAN_RETURN_IF_ERROR(write());
  const std::string report = Report(config, rows, settings, notes);
  return WriteReport(config.out, report);
}

Command Table1Command() {
  return Command{
      .group = "bench",
      .name = "reproduce_table1",
      .summary = "NeuroShard Table 1: mean ground-truth plan cost per algorithm and setting",
      .description = "See docs/benchmarks.md.\n",
      .flags =
          {
              {"devices", "N,...", "device counts", "4,8"},
              {"max-dims", "D,...", "max table dims", "4,8,16,32,64,128"},
              {"tasks", "N", "tasks per setting", "100"},
              {"seed", "S", "task seed", "0"},
              {"pool", "FILE", "table pool", offline::kDefaultPool},
              {"models-dir", "DIR", "model bundles", "models"},
              {"model", "NAME@VERSION", "cost model the algorithms plan under", "sim-rtx2080ti@2"},
              {"algorithms", "A,...", "algorithms (unregistered ones are skipped)",
               "random,size_greedy,dim_greedy,lookup_greedy,size_lookup_greedy,torchrec,"
               "autoshard,dreamshard,neuroshard"},
              {"analytic-row", "ALGORITHM",
               "algorithm also run under analytic@1, as row ALGORITHM-analytic (by default "
               "NeuroShard's search with the neural cost models ablated); empty: none",
               kNeuroShard},
              {"search-only-row", "",
               "also run NeuroShard without its baseline portfolio (baselines=false, the "
               "reference's search alone), as row neuroshard-search-only",
               ""},
              {"autoshard-reference-row", "",
               "also run AutoShard as its reference code does, without the memory mask "
               "(mask_memory=false), as row autoshard-reference",
               ""},
              {"ground-truth", "sim|sim:PROFILE|cpu",
               "sim: the rtx2080ti simulator, noise off (sim:h100-sxm another profile); cpu: "
               "measured on this CPU, compute only, tasks at batch 2048 (needs a cpu-trained "
               "--model, e.g. cpu-amd-epyc@2)",
               "sim"},
              {"out", "PREFIX", "writes PREFIX.json and PREFIX.md", "bench/results/table1"},
              {"fresh", "", "ignore the results of a previous run", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::Table1Command(), argc, argv);
}
