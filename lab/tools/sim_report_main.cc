// shardplan-sim-report: prints the simulator's magnitudes and the NeuroShard section 2
// observations for one hardware profile, on synthetic DLRM-like tables (synthetic_tables.h).
//   shardplan-sim-report [--profile rtx2080ti] [--devices 4] [--tasks 20] [--seed 0]
//                        [--pool data/table_pool/dlrm_856.json]
// With --pool, tables are drawn from the pool (ids with replacement, dims from the grid, as the
// reference's gen_tasks does) instead of synthesised.
// The numbers in docs/simulator.md come from this command.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/command_line.h"
#include "base/exit_codes.h"
#include "base/option_help.h"
#include "base/option_values.h"
#include "base/seeded_rng.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/compute_model.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "groundtruth/sim/observations.h"
#include "groundtruth/sim/sim_backend.h"
#include "groundtruth/sim/synthetic_tables.h"
#include "lab/data/generators.h"
#include "lab/data/table_pool.h"
#include "planner/domain/memory.h"
#include "planner/domain/topology.h"

namespace shardplan {
namespace {

constexpr int64_t kBatch = 65536;
constexpr double kDeviceMemoryGiB = 4.0;  // the reference's per-device cap

double GiB(const Table& t) { return static_cast<double>(t.rows) * t.dim * 4 / kBytesPerGiB; }

// Draws `count` tables with dims from {4, ..., max_dim}: from the pool when it has tables.
std::vector<Table> DrawTables(const TablePool& pool, std::mt19937_64& rng, int count,
                              int32_t max_dim) {
  if (pool.tables.empty()) return SyntheticTables(rng, count, max_dim);
  std::vector<int32_t> dims;
  for (int32_t dim = 4; dim <= max_dim; dim *= 2) dims.push_back(dim);
  std::vector<Table> tables;
  for (int i = 0; i < count; ++i) {
    Table t = pool.tables[UniformInt(rng, 0, static_cast<int64_t>(pool.tables.size()) - 1)];
    t.dim = dims[UniformInt(rng, 0, static_cast<int64_t>(dims.size()) - 1)];
    tables.push_back(std::move(t));
  }
  return tables;
}

double SingleCost(const HardwareProfile& p, const Table& t) {
  return SimulateCompute(p, std::span<const Table>(&t, 1), kBatch).total_ms();
}

struct PlanCost {
  double total = 0.0, max_compute = 0.0, max_comm = 0.0;
};

// Greedy by single-table cost under the memory cap, then the reference's plan cost on the
// simulator (docs/design.md section 2, ScorePlacementOnHardware). False when some table fits
// nowhere.
bool GreedyPlanCost(const HardwareProfile& p, const std::vector<Table>& tables, int devices,
                    PlanCost& out) {
  std::vector<int> order(tables.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> cost(tables.size());
  for (size_t i = 0; i < tables.size(); ++i) cost[i] = SingleCost(p, tables[i]);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<std::vector<Table>> placed(devices);
  std::vector<double> load(devices, 0.0), mem(devices, 0.0);
  for (int i : order) {
    int best = -1;
    for (int d = 0; d < devices; ++d) {
      if (mem[d] + GiB(tables[i]) > kDeviceMemoryGiB) continue;
      if (best < 0 || load[d] < load[best]) best = d;
    }
    if (best < 0) return false;
    placed[best].push_back(tables[i]);
    load[best] += cost[i];
    mem[best] += GiB(tables[i]);
  }
  // Noise off: the simulator's exact figures, scored by the shared ground-truth formula.
  SimBackend sim(p, devices, SimOptions{});
  absl::StatusOr<HardwarePlanCost> scored = ScorePlacementOnHardware(placed, kBatch, sim);
  if (!scored.ok()) {
    std::fprintf(stderr, "%s\n", std::string(scored.status().message()).c_str());
    std::exit(1);
  }
  out = {.total = scored->cost_ms};
  for (int d = 0; d < devices; ++d) {
    out.max_compute = std::max(out.max_compute, scored->compute_ms[d]);
    out.max_comm =
        std::max(out.max_comm, scored->backward_comm_ms[d] + scored->forward_comm_ms[d]);
  }
  return true;
}

constexpr char kProgram[] = "shardplan-sim-report";

int Main(int argc, char** argv) {
  const std::vector<OptionSpec> specs = {
      {"profile", "NAME", "hardware profile (docs/simulator.md)", "rtx2080ti"},
      {"devices", "N", "devices of the comm observations and the tasks", "4"},
      {"tasks", "N", "tasks per max dim", "20"},
      {"seed", "S", "seed", "0"},
      {"pool", "FILE", "draw the tables from this pool instead of synthesising them", ""},
      OptionSpec::Switch("help", "this help", 'h'),
  };
  absl::StatusOr<OptionValues> flags =
      ParseOptions(specs, std::vector<std::string>(argv + 1, argv + argc),
                   {.allow_positionals = false, .repeated_option_is_error = true});
  if (!flags.ok()) return ReportError(flags.status(), kProgram, kProgram);
  if (flags->Has("help")) {
    std::printf("Usage: %s [options]\n\nOptions:\n%s", kProgram, FormatOptionsHelp(specs).c_str());
    return kExitOk;
  }
  const std::string profile_name = flags->Get("profile");
  const std::string pool_path = flags->Get("pool");
  absl::StatusOr<int64_t> devices_flag = flags->GetInt("devices");
  absl::StatusOr<int64_t> tasks_flag = flags->GetInt("tasks");
  absl::StatusOr<uint64_t> seed_flag = flags->GetUint("seed");
  for (const absl::Status& status :
       {devices_flag.status(), tasks_flag.status(), seed_flag.status()}) {
    if (!status.ok()) return ReportError(status, kProgram, kProgram);
  }
  if (*devices_flag < 1 || *tasks_flag < 1 || *devices_flag > 4096 || *tasks_flag > 1000000) {
    return ReportError(UsageError("--devices must be in [1, 4096] and --tasks in [1, 1000000]"),
                       kProgram, kProgram);
  }
  const int devices = static_cast<int>(*devices_flag);
  const int tasks = static_cast<int>(*tasks_flag);
  const uint64_t seed = *seed_flag;
  absl::StatusOr<HardwareProfile> found = FindHardwareProfile(profile_name);
  if (!found.ok()) {
    std::fprintf(stderr, "%s\n", std::string(found.status().message()).c_str());
    return 2;
  }
  const HardwareProfile& p = *found;
  TablePool pool;
  if (!pool_path.empty()) {
    absl::StatusOr<TablePool> loaded = LoadTablePool(pool_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", std::string(loaded.status().message()).c_str());
      return 2;
    }
    pool = *std::move(loaded);
  }
  std::printf("profile %s (%s), %d devices, batch %lld, seed %llu, tables: %s\n", p.name.c_str(),
              p.description.c_str(), devices, static_cast<long long>(kBatch),
              static_cast<unsigned long long>(seed),
              pool_path.empty() ? "synthetic" : pool_path.c_str());

  std::mt19937_64 rng = SampleRng(seed, 0);
  std::printf("\nObservation 1: cost (ms) at dim D and of one D/2 half; ratio = 2*half/whole\n");
  for (int i = 0; i < 4; ++i) {
    const Table t =
        pool.tables.empty() ? SyntheticTable(rng, 128, i) : DrawTables(pool, rng, 1, 4).front();
    std::printf("table rows=%lld pf=%.1f\n", static_cast<long long>(t.rows), t.pooling_factor);
    for (const DimCostPoint& pt : SweepDims(p, t, kBatch)) {
      std::printf("  D=%3d  %8.3f  half %8.3f  ratio %.2f\n", pt.dim, pt.cost_ms, pt.half_cost_ms,
                  2 * pt.half_cost_ms / pt.cost_ms);
    }
  }

  rng = SampleRng(seed, 1);
  std::vector<double> ratios;
  double lo_sum = 1e300, hi_sum = 0;
  for (int s = 0; s < 50; ++s) {
    const std::vector<Table> set = DrawTables(pool, rng, 10, 128);
    const MultiTablePoint pt = CompareMultiTable(p, set, kBatch);
    ratios.push_back(pt.multi_ms / pt.sum_single_ms);
    lo_sum = std::min(lo_sum, pt.sum_single_ms);
    hi_sum = std::max(hi_sum, pt.sum_single_ms);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf(
      "\nObservation 2: 50 sets of 10 tables, multi/sum-of-single ratio min %.3f "
      "median %.3f max %.3f (sum of single %.1f..%.1f ms)\n",
      ratios.front(), ratios[ratios.size() / 2], ratios.back(), lo_sum, hi_sum);

  rng = SampleRng(seed, 2);
  std::printf("\nObservation 3: %d tables, random dims, random placements\n", 10 * devices);
  std::vector<int32_t> dims(10 * devices);
  for (int32_t& d : dims) d = 4 << UniformInt(rng, 0, 5);
  std::vector<std::pair<int64_t, double>> comm_points;
  for (int s = 0; s < 50; ++s) {
    const double random_prob = Uniform01(rng);
    // In draw order (not sorted): the function places tables in the order given.
    const std::vector<int32_t> device_of = PlaceDimsGreedyWithProbability(dims, devices,
                                                                          random_prob, rng);
    std::vector<int64_t> sums(devices, 0);
    for (size_t t = 0; t < dims.size(); ++t) sums[device_of[t]] += dims[t];
    const CommPoint pt = CommVsMaxDimSum(p, sums, kBatch);
    comm_points.push_back({pt.max_dim_sum, pt.max_forward_ms});
  }
  std::sort(comm_points.begin(), comm_points.end());
  for (size_t i = 0; i < comm_points.size(); i += 10) {
    std::printf("  max dim sum %5lld  max fw comm %7.3f ms\n",
                static_cast<long long>(comm_points[i].first), comm_points[i].second);
  }
  std::printf("  max dim sum %5lld  max fw comm %7.3f ms\n",
              static_cast<long long>(comm_points.back().first), comm_points.back().second);

  std::printf(
      "\nTable-1-like tasks (T in [%d,%d], greedy by simulated single-table cost, "
      "%.0f GiB/device), mean over %d tasks:\n",
      10 * devices / 4, 60 * devices / 4 - 1, kDeviceMemoryGiB, tasks);
  std::printf("  max_dim  plan cost ms  max compute ms  max comm ms  tables\n");
  for (int32_t max_dim = 4; max_dim <= 128; max_dim *= 2) {
    // The same seed for every max_dim: mostly the same tables, only the dims differ.
    std::mt19937_64 task_rng = SampleRng(seed, 100);
    PlanCost sum;
    int done = 0;
    double num_tables = 0.0;
    while (done < tasks) {
      // The count is drawn once per task and kept while the tables are redrawn until they fit,
      // as the reference's gen_tasks.py does (lab/data/generators.h); a count that fits
      // in no draw of 10^6 is given up.
      const int count =
          static_cast<int>(UniformInt(task_rng, 10 * devices / 4, 60 * devices / 4 - 1));
      std::vector<Table> tables;
      bool fits = false;
      for (int attempt = 0; attempt < 1000000 && !fits; ++attempt) {
        tables = DrawTables(pool, task_rng, count, max_dim);
        double total_gib = 0;
        for (const Table& t : tables) total_gib += GiB(t);
        fits = total_gib <= kDeviceMemoryGiB * devices - 1;
      }
      if (!fits) continue;
      PlanCost cost;
      if (!GreedyPlanCost(p, tables, devices, cost)) continue;
      sum.total += cost.total;
      sum.max_compute += cost.max_compute;
      sum.max_comm += cost.max_comm;
      num_tables += count;
      ++done;
    }
    std::printf("  %7d  %12.2f  %14.2f  %11.2f  %6.1f\n", max_dim, sum.total / tasks,
                sum.max_compute / tasks, sum.max_comm / tasks, num_tables / tasks);
  }
  return 0;
}

}  // namespace
}  // namespace shardplan

int main(int argc, char** argv) { return shardplan::Main(argc, argv); }
