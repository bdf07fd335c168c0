// Planning time of the baselines through the full pipeline (PlanTask: parameter resolution,
// planning, plan validation and evaluation under analytic@1), from the paper's task sizes up to
// the production setting of ~1000 tables on 128 devices.
//
//   build/bench/baselines_bench --benchmark_out=bench/results/baselines.json
//                               --benchmark_out_format=json
#include <string>
#include <vector>

#include "bench/synthetic_tasks.h"
#include "benchmark/benchmark.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"

namespace shardplan::bench {
namespace {

const AlgorithmRegistry& Algorithms() {
  static const AlgorithmRegistry* registry = new AlgorithmRegistry(BuiltinAlgorithms());
  return *registry;
}

void BM_PlanTask(benchmark::State& state, const std::string& algorithm) {
  const Task task = SyntheticTask(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)), /*seed=*/0);
  const Algorithm* planner = *Algorithms().Find(algorithm);
  const AnalyticCostModel model;
  for (auto _ : state) {
    absl::StatusOr<Plan> plan = PlanTask(*planner, task, model, PlanTaskOptions{});
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(plan->cost_ms);
  }
  state.counters["tables/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}

void TaskSizes(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"tables", "devices"});
  for (const auto& [tables, devices] : std::vector<std::pair<int, int>>{
           {60, 4}, {120, 8}, {1000, 128}}) {
    bench->Args({tables, devices});
  }
  bench->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_PlanTask, random, std::string("random"))->Apply(TaskSizes);
BENCHMARK_CAPTURE(BM_PlanTask, size_greedy, std::string("size_greedy"))->Apply(TaskSizes);
BENCHMARK_CAPTURE(BM_PlanTask, dim_greedy, std::string("dim_greedy"))->Apply(TaskSizes);
BENCHMARK_CAPTURE(BM_PlanTask, lookup_greedy, std::string("lookup_greedy"))->Apply(TaskSizes);
BENCHMARK_CAPTURE(BM_PlanTask, size_lookup_greedy, std::string("size_lookup_greedy"))
    ->Apply(TaskSizes);

}  // namespace
}  // namespace shardplan::bench

BENCHMARK_MAIN();
