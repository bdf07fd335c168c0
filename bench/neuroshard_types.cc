// neuroshard_types: NeuroShard over every sharding type against TorchRec's planner, on
// Criteo-shaped tasks (issue 27). Each task holds the 26 Criteo-Kaggle cardinalities at one dim,
// pooling factor 1 and Zipf access of one exponent; variant "hot" adds three hot tables (pooling
// 250, 800 and 2000) and "huge" one table of --huge-factor device memories at dim 4, which only
// row shards can hold. Every planner plans under analytic@1 and every plan is scored on the
// simulator's --profile with the task's hosts. Planners: NeuroShard before this issue (column
// level only, greedy baselines in its portfolio), its search alone over every type
// (baselines=false), NeuroShard as registered (every type; greedy baselines and torchrec in its
// portfolio) and torchrec. A smaller version of the full Criteo suite, enough to compare the two.
//
//   build/bench/neuroshard_types [--topologies 1x4,1x8,2x8,4x8] [--exponents 0.8,1.1,1.4]
//       [--variants criteo,hot,huge] [--dim 64] [--device-memory-gib 11]
//       [--huge-factor 2.5] [--profile rtx2080ti] [--out bench/results/neuroshard_types]
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
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
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/tools/tool_support.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/algorithms/neuroshard/neuroshard_planner.h"
#include "planner/estimators/zipf_access_model.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan::bench {
namespace {

using offline::Command;

constexpr int64_t kCriteoRows[] = {
    1460, 583,   10131227, 2202608, 305,  24,   12517, 633,     3,  93145, 5683,   8351593, 3194,
    27,   14992, 5461306,  10,      5652, 2173, 4,     7046547, 18, 15,    286181, 105,     142572};

struct Topo {
  int hosts = 1;
  int local = 1;
};

// The access histogram of Zipf(`exponent`) draws of one batch's lookups over `rows` rows.
std::vector<double> ZipfBins(int64_t rows, int64_t lookups, double exponent) {
  const ZipfAccessStats stats = ExpectedZipfAccess(rows, lookups, exponent);
  std::vector<double> bins(kNumAccessBins, 0.0);
  for (int j = 0; j < kNumAccessBins; ++j) bins[j] = stats.rows_per_bin[j] / stats.distinct_rows;
  return bins;
}

Table ZipfTable(std::string name, int64_t rows, int32_t dim, double pooling, double exponent) {
  Table table;
  table.name = std::move(name);
  table.rows = rows;
  table.dim = dim;
  table.pooling_factor = pooling;
  table.access_bins = ZipfBins(rows, static_cast<int64_t>(pooling * kDefaultBatchSize), exponent);
  return table;
}

Task CriteoTask(const Topo& topo, double exponent, const std::string& variant, int32_t dim,
                double device_gib, double huge_factor) {
  Task task;
  for (size_t i = 0; i < std::size(kCriteoRows); ++i) {
    task.tables.push_back(
        ZipfTable(absl::StrFormat("c%02d", i), kCriteoRows[i], dim, 1.0, exponent));
  }
  if (variant == "hot") {
    int k = 0;
    for (double pooling : {250.0, 800.0, 2000.0}) {
      task.tables.push_back(ZipfTable(absl::StrCat("hot", k++), 1'000'000, dim, pooling, exponent));
    }
  }
  const auto device_bytes = static_cast<int64_t>(device_gib * kBytesPerGiB);
  if (variant == "huge") {
    const auto bytes = static_cast<int64_t>(huge_factor * static_cast<double>(device_bytes));
    task.tables.push_back(ZipfTable("huge", bytes / 16, 4, 1.0, exponent));
  }
  task.topology.memory_bytes.assign(static_cast<size_t>(topo.hosts * topo.local), device_bytes);
  task.topology.devices_per_host = topo.local;
  return CanonicalTask(std::move(task));
}

struct Row {
  std::string label;
  const Algorithm* algorithm;
  std::map<std::string, std::string> params;
};

absl::Status Run(const OptionValues& args) {
  std::vector<Topo> topologies;
  for (absl::string_view part : absl::StrSplit(args.Get("topologies"), ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> hl = absl::StrSplit(part, 'x');
    Topo topo;
    if (hl.size() != 2 || !absl::SimpleAtoi(hl[0], &topo.hosts) ||
        !absl::SimpleAtoi(hl[1], &topo.local) || topo.hosts < 1 || topo.local < 1) {
      return UsageError(absl::StrCat("--topologies: '", part, "' is not HOSTSxLOCAL"));
    }
    topologies.push_back(topo);
  }
  std::vector<double> exponents;
  for (absl::string_view part : absl::StrSplit(args.Get("exponents"), ',', absl::SkipEmpty())) {
    double exponent = 0;
    if (!absl::SimpleAtod(part, &exponent)) {
      return UsageError(absl::StrCat("--exponents: '", part, "' is not a number"));
    }
    exponents.push_back(exponent);
  }
  const std::vector<std::string> variants =
      absl::StrSplit(args.Get("variants"), ',', absl::SkipEmpty());
  int32_t dim = 0;
  double device_gib = 0, huge_factor = 0;
  if (!absl::SimpleAtoi(args.Get("dim"), &dim) || dim < 4 ||
      !absl::SimpleAtod(args.Get("device-memory-gib"), &device_gib) || device_gib <= 0 ||
      !absl::SimpleAtod(args.Get("huge-factor"), &huge_factor) || huge_factor <= 0) {
    return UsageError("--dim, --device-memory-gib and --huge-factor must be positive numbers");
  }

  const AnalyticCostModel model;
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* neuroshard, registry.Find("neuroshard"));
  SHARDPLAN_ASSIGN_OR_RETURN(const Algorithm* torchrec, registry.Find("torchrec"));
  const NeuroShardPlanner column_level_only;  // no torchrec in its portfolio
  const std::vector<Row> rows = {
      {"neuroshard before (TW/CW)", &column_level_only, {{"row_level", "false"}}},
      {"neuroshard search-only", neuroshard, {{"baselines", "false"}}},
      {"neuroshard", neuroshard, {}},
      {"torchrec", torchrec, {}},
  };
  std::string report = absl::StrCat(
      "# NeuroShard over every sharding type vs torchrec, Criteo-shaped tasks\n\n",
      "26 Criteo-Kaggle tables (dim ", dim,
      ", pooling 1, Zipf access), variants: ", absl::StrJoin(variants, ", "), "; devices of ",
      device_gib, " GiB; every planner under analytic@1; ground truth: sim ", args.Get("profile"),
      ". Cells: ground-truth ms (analytic@1's rating ms, planning ms); ratio: ground truth, "
      "neuroshard / torchrec.\n\n| topology | variant | "
      "exponent |");
  for (const Row& row : rows) absl::StrAppend(&report, " ", row.label, " |");
  absl::StrAppend(&report,
                  " neuroshard / torchrec | neuroshard's types | torchrec's types |\n"
                  "|---|---|---:|");
  for (size_t i = 0; i <= rows.size(); ++i) absl::StrAppend(&report, "---:|");
  absl::StrAppend(&report, "---|---|\n");
  std::vector<double> ratios;
  int rated_worse = 0;  // tasks where analytic@1 rates neuroshard's plan above torchrec's
  for (const Topo& topo : topologies) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        std::unique_ptr<HardwareBackend> backend,
        MakeSimBackend(args.Get("profile"), topo.hosts * topo.local, SimOptions{}));
    for (const std::string& variant : variants) {
      for (double exponent : exponents) {
        const Task task = CriteoTask(topo, exponent, variant, dim, device_gib, huge_factor);
        absl::StrAppend(&report, "| ", topo.hosts, "x", topo.local, " | ", variant, " | ", exponent,
                        " |");
        std::vector<double> truth(rows.size(), std::nan(""));
        std::vector<double> rated(rows.size(), std::nan(""));
        std::string types;
        for (size_t r = 0; r < rows.size(); ++r) {
          PlanTaskOptions options;
          options.params = rows[r].params;
          TimedPlan timed = PlanAndTime(*rows[r].algorithm, task, model, options);
          if (!timed.plan.ok()) {
            absl::StrAppend(&report, " failed |");
            continue;
          }
          absl::StatusOr<HardwarePlanCost> cost = ScorePlanOnHardware(task, *timed.plan, *backend);
          if (!cost.ok()) return cost.status();
          truth[r] = cost->cost_ms;
          rated[r] = timed.plan->cost_ms;
          absl::StrAppend(&report, absl::StrFormat(" %.2f (%.2f, %.0f) |", cost->cost_ms,
                                                   timed.plan->cost_ms, timed.planning_ms));
          if (rows[r].label == "neuroshard" || rows[r].label == "torchrec") {
            std::map<std::string, int> counts;
            for (const TableSharding& sharding : timed.plan->tables) {
              ++counts[ShardingTypeName(sharding.sharding_type)];
            }
            std::vector<std::string> parts;
            for (const auto& [name, count] : counts)
              parts.push_back(absl::StrCat(name, " ", count));
            absl::StrAppend(&types, absl::StrJoin(parts, ", "), " |");
          }
        }
        const double ratio = truth[2] / truth[3];
        if (std::isfinite(ratio)) {
          ratios.push_back(ratio);
          if (rated[2] > rated[3] * (1 + 1e-9)) ++rated_worse;
        }
        absl::StrAppend(&report, absl::StrFormat(" %.3f |", ratio), " ", types, "\n");
        std::cerr << "\r" << topo.hosts << "x" << topo.local << " " << variant << " " << exponent
                  << "        ";
      }
    }
  }
  std::cerr << "\n";
  if (!ratios.empty()) {
    double worst = 0.0, sum = 0.0;
    for (double ratio : ratios) {
      worst = std::max(worst, ratio);
      sum += ratio;
    }
    absl::StrAppend(
        &report,
        absl::StrFormat("\nneuroshard / torchrec on ground truth: mean %.3f, worst "
                        "%.3f over %d tasks both planned; analytic@1 rates "
                        "neuroshard's plan above torchrec's on %d of them.\n",
                        sum / ratios.size(), worst, static_cast<int>(ratios.size()), rated_worse));
  }
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(args.Get("out") + ".md", report));
  std::cout << report << "\nwrote " << args.Get("out") << ".md\n";
  return absl::OkStatus();
}

Command NeuroShardTypesCommand() {
  return Command{
      .group = "bench",
      .name = "neuroshard_types",
      .summary = "NeuroShard over every sharding type vs torchrec on Criteo-shaped tasks",
      .description = "See docs/neuroshard.md, \"Every sharding type\".\n",
      .flags =
          {
              {"topologies", "HxL,...", "hosts x devices per host", "1x4,1x8,2x8,4x8"},
              {"exponents", "A,...", "Zipf exponents of the access", "0.8,1.1,1.4"},
              {"variants", "V,...", "criteo, hot (3 hot tables), huge (a table > a device)",
               "criteo,hot,huge"},
              {"dim", "D", "every Criteo table's dim", "64"},
              {"device-memory-gib", "G", "memory of every device", "11"},
              {"huge-factor", "X", "the huge table's size in device memories", "2.5"},
              {"profile", "NAME", "the simulator's hardware profile (ground truth)", "rtx2080ti"},
              {"out", "PREFIX", "writes PREFIX.md", "bench/results/neuroshard_types"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::NeuroShardTypesCommand(), argc, argv);
}
