// request_overhead: what a request costs the server besides planning, in process, for tasks of
// T tables on D devices sent without access histograms under a neural model: the preparation
// every call pays (validation, model choice, the out-of-training-range check, the cache key:
// PlanningEngine::Prepare), a cache hit (Prepare and the lookup), the first computation (which
// imputes the histograms, then plans) and an evaluation of the plan (EvaluatePlan's work). It
// prints the thread CPU time of each, median over the repeats (the computation once).
//
//   build/bench/request_overhead [--sizes 1000x8,12500x8,100000x8] [--model sim-rtx2080ti]
//       [--algorithm size_greedy] [--repeats 5] [--seed 0] [--models-dir models]
//       [--out bench/results/request_overhead]
#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/synthetic_tasks.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "server/metrics.h"
#include "server/plan_cache.h"
#include "server/planning_engine.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

// CPU time of the calling thread, ms: what a request costs the server whatever else runs.
double ThreadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const auto sizes, IntPairList(args, "sizes", "TABLESxDEVICES"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t repeats, args.GetInt("repeats"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  if (repeats < 1) return UsageError("--repeats must be positive");
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(args.Get("models-dir"), models));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  ServerMetrics metrics;
  PlanCache cache(int64_t{1} << 30);
  const PlanningEngine engine(&algorithms, &models, &cache, &metrics,
                              PlanningEngineOptions{.limits = {.max_tables = 1000000}});
  json result = {{"config",
                  {{"model", args.Get("model")},
                   {"algorithm", args.Get("algorithm")},
                   {"repeats", repeats},
                   {"seed", seed}}},
                 {"sizes", json::array()}};
  std::string report = absl::StrCat(
      "Thread CPU ms per request, in process (PlanningEngine), tasks without access histograms "
      "under ",
      args.Get("model"), ", ", args.Get("algorithm"), "; median of ", repeats,
      " (the computation once).\n\n",
      "| tables x devices | prepare | cache hit | compute (imputes, plans) | evaluate |\n"
      "|---|---:|---:|---:|---:|\n");
  for (const auto& [tables, devices] : sizes) {
    PlanningRequest request;
    request.task = SyntheticTask(tables, devices, seed);
    for (Table& table : request.task.tables) table.access_bins.clear();
    request.algorithm = args.Get("algorithm");
    request.model = args.Get("model");
    std::vector<double> prepare_ms, hit_ms, evaluate_ms;
    double compute_ms = 0;
    Plan shards;
    for (int64_t r = 0; r <= repeats; ++r) {
      const double start = ThreadCpuMs();
      absl::StatusOr<PreparedRequest> prepared = engine.Prepare(request);
      if (!prepared.ok()) return prepared.status();
      const double prepared_at = ThreadCpuMs();
      std::optional<PlanningResult> hit = engine.CachedResult(*prepared);
      if (!hit.has_value()) {  // the first round computes the plan the others hit
        const StopSignal stop;
        absl::StatusOr<PlanningResult> computed = engine.Compute(*prepared, stop, nullptr);
        if (!computed.ok()) return computed.status();
        compute_ms = ThreadCpuMs() - prepared_at;
        shards.tables = computed->plan.tables;
        continue;
      }
      prepare_ms.push_back(prepared_at - start);
      hit_ms.push_back(ThreadCpuMs() - start);
      const double evaluate_start = ThreadCpuMs();
      absl::StatusOr<PlanningResult> evaluated =
          engine.Evaluate(request.task, shards, request.model);
      if (!evaluated.ok()) return evaluated.status();
      evaluate_ms.push_back(ThreadCpuMs() - evaluate_start);
    }
    const json row = {{"tables", tables},
                      {"devices", devices},
                      {"prepare_ms", Median(prepare_ms)},
                      {"hit_ms", Median(hit_ms)},
                      {"compute_ms", compute_ms},
                      {"evaluate_ms", Median(evaluate_ms)}};
    result["sizes"].push_back(row);
    absl::StrAppend(&report, "| ", tables, " x ", devices, " | ",
                    absl::StrFormat("%.1f | %.1f | %.1f | %.1f", Median(prepare_ms), Median(hit_ms),
                                    compute_ms, Median(evaluate_ms)),
                    " |\n");
  }
  const std::string out = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(out + ".json", result.dump(2) + "\n"));
  return WriteReport(out, report);
}

Command RequestOverheadCommand() {
  return Command{
      .group = "bench",
      .name = "request_overhead",
      .summary = "CPU a request costs besides planning: prepare, cache hit, compute, evaluate",
      .description =
          "Times, in process, the preparation of requests for tasks without access histograms,\n"
          "a cache hit, the first computation and an evaluation, by task size. Results go to\n"
          "OUT.md and OUT.json.",
      .flags =
          {
              {"sizes", "LIST", "TABLESxDEVICES,...", "1000x8,12500x8,100000x8"},
              {"model", "SPEC", "the neural cost model", "sim-rtx2080ti"},
              {"algorithm", "NAME", "the planner that computes the cached plan", "size_greedy"},
              {"repeats", "N", "timed repeats per size", "5"},
              {"seed", "N", "task seed", "0"},
              {"models-dir", "DIR", "model bundles", "models"},
              {"out", "PREFIX", "where the results go (.md, .json)",
               "bench/results/request_overhead"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::RequestOverheadCommand(), argc, argv);
}
