// missing_histograms: what a table sent without its access histogram costs a user, and what the
// server's imputation (TypicalAccessBins, docs/cost-models.md "Tables without a histogram")
// buys back. On held-out tasks (another seed than Table 1's) it plans every task with NeuroShard
// four ways and scores each plan on ground truth with the tables' real histograms:
//   real      the tables as they are (histograms sent)
//   imputed   histograms stripped, then imputed as the server does (with a warning)
//   zeros     histograms stripped and fed to the neural model as seventeen zeros (what the
//             server did before it imputed)
//   analytic  histograms stripped, planned under analytic@1, which does not read them
// and reports the mean ground-truth cost against `real`, and how far the planning model's own
// prediction is from ground truth.
//
//   build/bench/missing_histograms [--devices 4,8] [--max-dims 32,128] [--tasks 50] [--seed 1]
//       [--model sim-rtx2080ti@2] [--pool data/table_pool/dlrm_856.json] [--models-dir models]
//       [--out bench/results/missing_histograms]
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "groundtruth/ground_truth.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/estimators/typical_access.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr const char* kWays[] = {"real", "imputed", "zeros", "analytic"};
constexpr int kNumWays = 4;

// The task as the planner sees it in each way.
Task Variant(const Task& task, int way) {
  Task copy = task;
  if (way == 0) return copy;
  for (Table& table : copy.tables) {
    table.access_bins.clear();
    if (way == 1) table.access_bins = TypicalAccessBins(table.rows, table.pooling_factor);
  }
  return copy;
}

struct Outcome {
  bool ok = false;
  double truth_ms = 0;
  double predicted_ms = 0;
  int64_t tables = 0;
};

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int> devices_list, IntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int> max_dims, IntList(args, "max-dims"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t tasks, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  if (tasks < 1) return UsageError("--tasks must be positive");
  SHARDPLAN_ASSIGN_OR_RETURN(const TablePool pool, LoadTablePool(args.Get("pool")));
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel neural, models.Resolve(args.Get("model")));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel analytic, models.Resolve("analytic@1"));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* planner, algorithms.Find("neuroshard"));

  json result = {{"config",
                  {{"devices", devices_list},
                   {"max_dims", max_dims},
                   {"tasks", tasks},
                   {"seed", seed},
                   {"model", neural.manifest.id()},
                   {"pool", args.Get("pool")},
                   {"ground_truth", absl::StrCat("sim-", kGroundTruthProfile, ", noise 0")}}},
                 {"settings", json::array()}};
  Progress progress(static_cast<int>(devices_list.size() * max_dims.size() * tasks));
  for (const int devices : devices_list) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> truth, MakeGroundTruth(devices));
    for (const int max_dim : max_dims) {
      const std::string label = absl::StrCat(devices, "/", max_dim);
      TaskGenOptions options;
      options.num_devices = devices;
      options.max_dim = max_dim;
      std::vector<std::vector<Outcome>> outcomes(kNumWays);
      for (int i = 0; i < tasks; ++i) {
        SHARDPLAN_ASSIGN_OR_RETURN(const Task task, GenerateTask(pool, options, seed, i));
        for (int way = 0; way < kNumWays; ++way) {
          const Task planned = Variant(task, way);
          const CostModel& model = way == 3 ? *analytic.model : *neural.model;
          TimedPlan timed = PlanAndTime(*planner, planned, model, {});
          Outcome outcome;
          if (timed.plan.ok()) {
            // Ground truth always sees the real histograms.
            absl::StatusOr<HardwarePlanCost> cost = ScorePlanOnHardware(task, *timed.plan, *truth);
            if (cost.ok()) {
              outcome = {true, cost->cost_ms, timed.plan->cost_ms,
                         static_cast<int64_t>(task.tables.size())};
            }
          }
          outcomes[way].push_back(outcome);
        }
        progress.Step(label, i + 1, static_cast<int>(tasks));
      }
      // Per way: mean ground truth over the tasks every way planned, the mean and worst excess
      // over `real` per task, and the mean relative error of the planning model's prediction.
      json ways = json::object();
      for (int way = 0; way < kNumWays; ++way) {
        double truth_sum = 0, excess_sum = 0, excess_max = 0, error_sum = 0;
        int n = 0, ok = 0;
        for (int i = 0; i < tasks; ++i) {
          ok += outcomes[way][i].ok;
          bool all = true;
          for (int w = 0; w < kNumWays; ++w) all = all && outcomes[w][i].ok;
          if (!all) continue;
          ++n;
          const Outcome& o = outcomes[way][i];
          truth_sum += o.truth_ms;
          const double excess = o.truth_ms / outcomes[0][i].truth_ms - 1.0;
          excess_sum += excess;
          excess_max = std::max(excess_max, excess);
          error_sum += (o.predicted_ms - o.truth_ms) / o.truth_ms;
        }
        ways[kWays[way]] = {
            {"success_rate", static_cast<double>(ok) / static_cast<double>(tasks)},
            {"tasks_compared", n},
            {"mean_ground_truth_ms", n > 0 ? json(truth_sum / n) : json(nullptr)},
            {"mean_excess_over_real", n > 0 ? json(excess_sum / n) : json(nullptr)},
            {"max_excess_over_real", n > 0 ? json(excess_max) : json(nullptr)},
            {"mean_prediction_error", n > 0 && way != 3 ? json(error_sum / n) : json(nullptr)}};
      }
      result["settings"].push_back({{"devices", devices}, {"max_dim", max_dim}, {"ways", ways}});
    }
  }
  std::cerr << "\n";

  std::string report = absl::StrCat(
      "# missing_histograms: tables sent without their access histograms\n\n",
      "NeuroShard under ", neural.manifest.id(), " (analytic@1 for `analytic`), ", tasks,
      " held-out tasks per setting (seed ", seed,
      "), every plan scored on ground truth (sim-rtx2080ti, noise off) with the tables' real "
      "histograms. Excess: a plan's ground-truth cost over the `real` plan's, per task; "
      "prediction error: (planning model's cost - ground truth) / ground truth, mean.\n\n",
      "| devices / max dim | way | success | mean ground truth ms | mean excess | max excess | "
      "mean prediction error |\n|---|---|---|---:|---:|---:|---:|\n");
  for (const json& setting : result["settings"]) {
    for (int way = 0; way < kNumWays; ++way) {
      const json& w = setting["ways"][kWays[way]];
      const auto pct = [](const json& v) {
        return v.is_null() ? std::string("-") : absl::StrFormat("%+.1f%%", 100 * v.get<double>());
      };
      absl::StrAppend(&report, "| ",
                      way == 0 ? absl::StrCat(setting["devices"].get<int>(), " / ",
                                              setting["max_dim"].get<int>())
                               : "",
                      " | ", kWays[way], " | ",
                      absl::StrFormat("%.0f%%", 100 * w["success_rate"].get<double>()), " | ",
                      NumberOrDash(w["mean_ground_truth_ms"]), " | ",
                      pct(w["mean_excess_over_real"]), " | ", pct(w["max_excess_over_real"]),
                      " | ", pct(w["mean_prediction_error"]), " |\n");
    }
  }
  const std::string out = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(out + ".json", result.dump(2) + "\n"));
  return WriteReport(out, report);
}

Command MissingHistogramsCommand() {
  return Command{
      .group = "bench",
      .name = "missing_histograms",
      .summary = "plans of tables without histograms: imputed, zeros or analytic, on ground truth",
      .description =
          "Plans held-out tasks with NeuroShard with real, imputed and zero histograms and under\n"
          "analytic@1, scores every plan on ground truth with the real histograms, and reports\n"
          "the cost of not sending them. Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"devices", "LIST", "device counts", "4,8"},
              {"max-dims", "LIST", "max table dims", "32,128"},
              {"tasks", "N", "tasks per setting", "50"},
              {"seed", "N", "task seed (Table 1 uses 0)", "1"},
              {"model", "SPEC", "the neural cost model", "sim-rtx2080ti@2"},
              {"pool", "FILE", "table pool", offline::kDefaultPool},
              {"models-dir", "DIR", "model bundles", "models"},
              {"out", "PREFIX", "where the results go (.md, .json)",
               "bench/results/missing_histograms"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::MissingHistogramsCommand(), argc, argv);
}
