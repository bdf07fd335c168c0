// oper_exact: OPER's heuristics against CBC's optimum on small instances (docs/oper.md, "Exact
// check"; bench/oper_exact/). For each instance (a few Zipf tables on 2-8 devices, OPER's
// partitions at one threshold: tens of them):
//
//   placement:   OPER's greedy (oper::PlacePartitions) against the placement MIP, objective
//                max/mean lookups + max/mean memory (2 = perfectly balanced);
//   replication: Algorithm 1 (oper::ReplicateForInference) on the greedy placement against the
//                replication MIP (replicas within each device's spare memory, routes), objective
//                Eq. 3's total communication per iteration (us).
//
// Every solution is re-checked with the planner's code (capacities, budget, paths, ValidatePlan
// of OPER's row layouts; communication recomputed). CBC gets --time-limit seconds per problem;
// the table says which were proven optimal and the gap to CBC's bound otherwise.
//
//   build/bench/oper_exact [--time-limit 10] [--seeds 2] [--zipf-exponent 1.05]
//       [--out bench/results/oper_exact]
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/oper_exact/exact_comparison.h"
#include "bench/oper_exact/exact_instance.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"

namespace shardplan::bench {
namespace {

using nlohmann::json;
using offline::Command;
using oper_exact::CbcVersion;
using oper_exact::InstanceSpec;
using oper_exact::MipOptions;

// The suite: 2 to 8 devices on one host or two, four tables, thresholds 25% (2-4 devices), 10%
// and 5% (about 10, 20 and 40 partitions), and a finer 2.5% on 2 x 4 (about 70).
std::vector<InstanceSpec> Suite(int seeds, double exponent, double inter_host_latency_us) {
  struct Shape {
    int devices;
    int per_host;
    double threshold;
  };
  // At 25% a partition outgrows an 8-device share, so that threshold stops at 4 devices.
  std::vector<Shape> shapes = {{2, 0, 0.25}, {4, 0, 0.25}, {4, 2, 0.25}};
  for (double threshold : {0.1, 0.05}) {
    for (const auto& [devices, per_host] :
         {std::pair{2, 0}, std::pair{4, 0}, std::pair{4, 2}, std::pair{8, 0}, std::pair{8, 4}}) {
      shapes.push_back({devices, per_host, threshold});
    }
  }
  shapes.push_back({8, 4, 0.025});
  std::vector<InstanceSpec> suite;
  for (const Shape& shape : shapes) {
    for (int seed = 0; seed < seeds; ++seed) {
      InstanceSpec spec;
      spec.tables = 4;
      spec.devices = shape.devices;
      spec.devices_per_host = shape.per_host;
      spec.threshold = shape.threshold;
      spec.zipf_exponent = exponent;
      spec.inter_host_latency_us = inter_host_latency_us;
      spec.seed = static_cast<uint64_t>(seed);
      suite.push_back(spec);
    }
  }
  return suite;
}

std::string Optimality(const oper_exact::MipResult& mip) {
  if (!mip.has_solution) return "no solution";
  return mip.proven_optimal ? "optimal" : "time limit";
}

std::string Gap(double gap) { return std::isfinite(gap) ? absl::StrFormat("%.2f%%", gap) : "-"; }

// The heuristic's gap to the bound; a heuristic equal to a proven optimum up to rounding is 0.
double ClampedGap(double heuristic, double bound) {
  const double gap = oper_exact::GapPercent(heuristic, bound);
  return std::isfinite(gap) && gap < 0.0 && gap > -1e-6 ? 0.0 : gap;
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const double time_limit, args.GetDouble("time-limit"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t seeds, args.GetInt("seeds"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double exponent, args.GetDouble("zipf-exponent"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double latency, args.GetDouble("inter-host-latency-us"));
  if (time_limit <= 0.0) return UsageError("--time-limit must be > 0");
  if (seeds < 1) return UsageError("--seeds must be >= 1");
  const MipOptions options{.time_limit_s = time_limit, .warm_start = true};

  std::string placement_table =
      "## Placement: max/mean lookups + max/mean memory (2 = perfect balance)\n\n"
      "| instance | partitions | OPER greedy | balance lookups / memory | CBC best | CBC bound | "
      "gap to bound | status | solve s |\n|---|---:|---:|---|---:|---:|---:|---|---:|\n";
  std::string replication_table =
      "\n## Replication (inference): communication per iteration, us (Eq. 3)\n\n"
      "| instance | spare KiB (device 0) | no copies | Algorithm 1 (replicas) | CBC best "
      "(replicas) | "
      "CBC bound | gap to bound | status | solve s |\n"
      "|---|---:|---:|---:|---:|---:|---:|---|---:|\n";
  json rows = json::array();
  const std::vector<InstanceSpec> suite = Suite(static_cast<int>(seeds), exponent, latency);
  Progress progress(static_cast<int>(suite.size()));
  int placement_optimal = 0;
  int replication_optimal = 0;
  for (size_t k = 0; k < suite.size(); ++k) {
    const std::string name = oper_exact::InstanceName(suite[k]);
    SHARDPLAN_ASSIGN_OR_RETURN(const auto instance, oper_exact::MakeInstance(suite[k]));
    absl::StatusOr<oper_exact::PlacementComparison> compared =
        oper_exact::ComparePlacement(*instance, options);
    if (absl::IsFailedPrecondition(compared.status())) {  // the greedy placed nothing: say so
      absl::StrAppend(&placement_table, "| ", name, " | ", instance->partitions.size(),
                      " | no placement: ", compared.status().message(), " | | | | | |\n");
      progress.Step(name, static_cast<int>(k + 1), static_cast<int>(suite.size()));
      continue;
    }
    SHARDPLAN_RETURN_IF_ERROR(compared.status());
    const oper_exact::PlacementComparison& placement = *compared;
    SHARDPLAN_ASSIGN_OR_RETURN(
        const oper_exact::ReplicationComparison replication,
        oper_exact::CompareReplication(*instance, placement.heuristic_owner, options));
    progress.Step(name, static_cast<int>(k + 1), static_cast<int>(suite.size()));

    const oper_exact::MipResult& pm = placement.exact.mip;
    const oper_exact::MipResult& rm = replication.exact.mip;
    placement_optimal += pm.proven_optimal ? 1 : 0;
    replication_optimal += rm.proven_optimal ? 1 : 0;
    const double placement_gap = ClampedGap(placement.heuristic.value(), pm.bound);
    const double replication_gap = ClampedGap(replication.heuristic_us, rm.bound);
    const double spare_kib =
        static_cast<double>(replication.spare.empty() ? 0 : replication.spare.front()) / 1024.0;
    absl::StrAppend(
        &placement_table,
        absl::StrFormat(
            "| %s | %d | %.4f | %.3f / %.3f | %s | %.4f | %s | %s | %.2f |\n", name,
            instance->partitions.size(), placement.heuristic.value(),
            placement.heuristic.lookup_balance, placement.heuristic.memory_balance,
            pm.has_solution ? absl::StrFormat("%.4f", placement.exact_score.value()) : "-",
            pm.bound, Gap(placement_gap), Optimality(pm), pm.seconds));
    absl::StrAppend(
        &replication_table,
        absl::StrFormat(
            "| %s | %.1f | %.4f | %.4f (%d) | %s | %.4f | %s | %s | %.2f |\n", name, spare_kib,
            replication.model_parallel_us, replication.heuristic_us, replication.heuristic_replicas,
            rm.has_solution
                ? absl::StrFormat("%.4f (%d)", replication.exact_us, replication.exact_replicas)
                : "-",
            rm.bound, Gap(replication_gap), Optimality(rm), rm.seconds));
    const auto finite = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    rows.push_back(
        {{"instance", name},
         {"devices", instance->devices()},
         {"devices_per_host", suite[k].devices_per_host},
         {"tables", suite[k].tables},
         {"threshold", suite[k].threshold},
         {"seed", suite[k].seed},
         {"partitions", instance->partitions.size()},
         {"placement",
          {{"heuristic", placement.heuristic.value()},
           {"heuristic_balance_lookups", placement.heuristic.lookup_balance},
           {"heuristic_balance_memory", placement.heuristic.memory_balance},
           {"cbc_best", pm.has_solution ? json(placement.exact_score.value()) : json(nullptr)},
           {"cbc_balance_lookups", placement.exact_score.lookup_balance},
           {"cbc_balance_memory", placement.exact_score.memory_balance},
           {"cbc_bound", pm.bound},
           {"proven_optimal", pm.proven_optimal},
           {"gap_percent", finite(placement_gap)},
           {"solve_s", pm.seconds}}},
         {"replication",
          {{"spare_bytes", replication.spare},
           {"model_parallel_us", replication.model_parallel_us},
           {"heuristic_us", replication.heuristic_us},
           {"heuristic_replicas", replication.heuristic_replicas},
           {"cbc_best_us", rm.has_solution ? json(replication.exact_us) : json(nullptr)},
           {"cbc_replicas", replication.exact_replicas},
           {"cbc_bound_us", rm.bound},
           {"proven_optimal", rm.proven_optimal},
           {"gap_percent", finite(replication_gap)},
           {"solve_s", rm.seconds}}}});
  }
  std::cerr << "\n";
  std::string report = absl::StrFormat(
      "# OPER against CBC's optimum (bench/oper_exact)\n\n%d instances: 4 Zipf(%g) tables, rows "
      "log-uniform in [%d, %d], dim %d, global batch %d; capacity %g x a balanced share; "
      "replicas within %g%% of the footprint / devices; fetch cost from the topology's "
      "bandwidths (inter-host latency %g us). CBC %s, %g s per problem (wall), warm-started "
      "from the heuristic. Proven optimal: placement %d of %d, replication %d of %d.\n\n",
      suite.size(), exponent, suite.front().min_rows, suite.front().max_rows, suite.front().dim,
      suite.front().batch_size, 1.0 + suite.front().capacity_slack,
      100.0 * suite.front().extra_memory, latency, CbcVersion(), time_limit, placement_optimal,
      suite.size(), replication_optimal, suite.size());
  absl::StrAppend(&report, placement_table, replication_table);
  const json out = {{"config",
                     {{"time_limit_s", time_limit},
                      {"seeds", seeds},
                      {"zipf_exponent", exponent},
                      {"inter_host_latency_us", latency}}},
                    {"instances", rows}};
  const std::string prefix = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(prefix + ".json", out.dump(2) + "\n"));
  return WriteReport(prefix, report);
}

Command OperExactCommand() {
  return Command{
      .group = "bench",
      .name = "oper_exact",
      .summary = "OPER's placement and Algorithm 1 against CBC's optimum on small instances",
      .description =
          "Solves the placement and inference-replication MIPs of small OPER instances with\n"
          "CBC and compares OPER's heuristics on the same partitions. docs/oper.md,\n"
          "\"Exact check\". Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"time-limit", "S", "CBC's time per problem (seconds)", "10"},
              {"seeds", "N", "instances per shape", "2"},
              {"zipf-exponent", "X", "every table's Zipf exponent", "1.05"},
              {"inter-host-latency-us", "US", "fetch latency between hosts (L's)", "0"},
              {"out", "PREFIX", "where the results go (.md, .json)", "bench/results/oper_exact"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::OperExactCommand(), argc, argv);
}
