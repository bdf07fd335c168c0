// flexshard_tiers: FlexShard's tier arithmetic (planner/algorithms/flexshard/flexshard_tiers.h,
// docs/flexshard.md) on the notes' worked case, and its planning time at the paper's scale.
//
// 1. The worked case (../shared/papers/notes/flexshard.md, section 8.2 item 5): E = 10M rows,
//    L = 500, Zipf s in {0.9, 1.0, 1.1}, 4 hosts x 8 GPUs, B = 4096 per GPU, D = 256, FP32,
//    multiplier 6, memory-neutral: point A, 2-tier and 3-tier rows and coverage, the Pareto
//    points, and the 3-tier with the Flex tier also cut at its communication breakpoint, under
//    two readings of the bandwidths (the paper's Fig. 3: all-reduce = 3 x all-to-all; a ring
//    all-reduce over the same NIC: half the all-to-all's bandwidth).
// 2. Planning time for 30M rows over 32 devices (RM-1's size: L = 1000, D = 256): from a Zipf
//    curve, and from 30M raw per-row counts in random order (the paper's "a sort and one pass":
//    sort, build the explicit profile's curve, compute the tiers). Minimum and median of
//    --repeats runs.
//
//   build/bench/flexshard_tiers [--rows 30000000] [--repeats 3]
//       [--out bench/results/flexshard_tiers]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/flexshard/flexshard_tiers.h"
#include "planner/domain/topology.h"

namespace shardplan::bench {
namespace {

using flexshard::ComputeTiers;
using flexshard::TierInputs;
using flexshard::TierResult;
using nlohmann::json;
using offline::Command;

// FlexShard's cluster: one 200 Gb/s RoCE NIC per A100 (23.28 GiB/s), NVLink 3 in the host
// (300 GB/s a direction, 279.4 GiB/s).
constexpr double kNicGiBps = 200e9 / 8 / kBytesPerGiB;
constexpr double kNvlinkGiBps = 300e9 / kBytesPerGiB;

flexshard::TierBandwidths Fig3Bandwidths() {
  return {.all_to_all_global_gibps = kNicGiBps,
          .all_to_all_intra_gibps = kNvlinkGiBps,
          .all_reduce_global_gibps = 3 * kNicGiBps,
          .all_reduce_cross_gibps = 3 * kNicGiBps};
}

flexshard::TierBandwidths RingBandwidths() {
  flexshard::TierBandwidths bw = Fig3Bandwidths();
  bw.all_reduce_cross_gibps = kNicGiBps / 2;
  return bw;
}

TierInputs Inputs(const RankFrequencyCurve& curve, double lookups, flexshard::TierBandwidths bw) {
  TierInputs in;
  in.tables = {{.name = "history", .curve = &curve, .lookups_per_sample = lookups, .dim = 256,
                .element_bytes = 4}};
  in.hosts = 4;
  in.devices_per_host = 8;
  in.local_batch = 4096;
  in.bandwidths = bw;
  return in;
}

double Gib(double bytes) { return bytes / kBytesPerGiB; }

absl::Status WorkedCase(std::string& report, json& out) {
  absl::StrAppend(&report,
                  "## The worked case: E = 10M, L = 500, 4 x 8 GPUs, B = 4096, D = 256, FP32\n\n"
                  "| s | A rows | A cov. | A saves GiB | 2-tier DP rows | 2-tier cov. | 3-tier DP "
                  "/ Flex rows | 3-tier cov. | 3-tier, Flex cut (Fig. 3 bw) | 3-tier, Flex cut "
                  "(ring bw) |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (double s : {0.9, 1.0, 1.1}) {
    const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, s);
    SHARDPLAN_ASSIGN_OR_RETURN(TierResult fig3, ComputeTiers(Inputs(curve, 500, Fig3Bandwidths())));
    TierInputs cut = Inputs(curve, 500, Fig3Bandwidths());
    cut.cut_flex_at_comm_breakpoint = true;
    SHARDPLAN_ASSIGN_OR_RETURN(TierResult fig3_cut, ComputeTiers(cut));
    cut.bandwidths = RingBandwidths();
    SHARDPLAN_ASSIGN_OR_RETURN(TierResult ring_cut, ComputeTiers(cut));
    const flexshard::ParetoPoint& a = fig3.points[0];
    const auto three = [](const TierResult& r) {
      return absl::StrFormat("%d / %d (%.1f%%)", r.three_tier.dp.rows, r.three_tier.flex.rows,
                             100 * (r.three_tier.dp.coverage + r.three_tier.flex.coverage));
    };
    absl::StrAppend(
        &report,
        absl::StrFormat("| %.1f | %d | %.1f%% | %.3f | %d | %.1f%% | %d / %d | %.1f%% | %s | %s |\n",
                        s, a.dp_rows, 100 * a.coverage, -Gib(a.marginal_memory_bytes),
                        fig3.two_tier.dp.rows, 100 * fig3.two_tier.dp.coverage,
                        fig3.three_tier.dp.rows, fig3.three_tier.flex.rows,
                        100 * (fig3.three_tier.dp.coverage + fig3.three_tier.flex.coverage),
                        three(fig3_cut), three(ring_cut)));
    json points = json::array();
    for (const flexshard::ParetoPoint& p : fig3.points) {
      points.push_back({{"label", p.label},
                        {"dp_rows", p.dp_rows},
                        {"coverage", p.coverage},
                        {"marginal_memory_gib", Gib(p.marginal_memory_bytes)},
                        {"marginal_comm_ms", p.marginal_comm_ms}});
    }
    const auto plan = [](const flexshard::TierPlan& t) {
      return json{{"dp_rows", t.dp.rows},
                  {"dp_coverage", t.dp.coverage},
                  {"flex_rows", t.flex.rows},
                  {"flex_coverage", t.flex.coverage},
                  {"rw_rows", t.rw.rows},
                  {"marginal_memory_gib", Gib(t.memory.marginal_bytes)},
                  {"global_all_to_all_ms", t.comm.global_all_to_all_ms},
                  {"global_all_reduce_ms", t.comm.global_all_reduce_ms},
                  {"intra_all_to_all_ms", t.comm.intra_all_to_all_ms},
                  {"cross_all_reduce_ms", t.comm.cross_all_reduce_ms},
                  {"non_overlappable_ms", t.comm.non_overlappable_ms}};
    };
    out["worked_case"].push_back(
        {{"zipf_exponent", s},
         {"breakpoints",
          {{"memory", fig3.breakpoints.memory},
           {"dp_comm", fig3.breakpoints.dp_comm},
           {"flex_comm_fig3", fig3.breakpoints.flex_comm},
           {"flex_comm_ring", ring_cut.breakpoints.flex_comm}}},
         {"points", points},
         {"two_tier", plan(fig3.two_tier)},
         {"three_tier", plan(fig3.three_tier)},
         {"three_tier_flex_cut_fig3", plan(fig3_cut.three_tier)},
         {"three_tier_flex_cut_ring", plan(ring_cut.three_tier)}});
    if (s == 1.0) {
      const flexshard::TierPlan& two = fig3.two_tier;
      const flexshard::TierPlan& t3 = fig3.three_tier;
      const double rw_ms = two.comm.global_all_to_all_ms / (1 - two.comm.all_to_all_reduction);
      out["comm_s1"] = {{"rw_global_all_to_all_ms", rw_ms},
                        {"two_tier_non_overlappable_ms", two.comm.non_overlappable_ms},
                        {"three_tier_non_overlappable_ms", t3.comm.non_overlappable_ms}};
    }
  }
  const json& c = out["comm_s1"];
  absl::StrAppend(
      &report,
      absl::StrFormat(
          "\nPoints B, C and D for s = 1.0 are in the JSON. Non-overlappable communication per "
          "step (paper's formulas, Fig. 3 bandwidths, s = 1.0): RW %.1f ms > 2-tier %.1f ms > "
          "3-tier %.1f ms.\n",
          c["rw_global_all_to_all_ms"].get<double>(),
          c["two_tier_non_overlappable_ms"].get<double>(),
          c["three_tier_non_overlappable_ms"].get<double>()));
  return absl::OkStatus();
}

struct Timing {
  double min_ms = 0.0;
  double median_ms = 0.0;
};

Timing TimeIt(int repeats, const std::function<void()>& run) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

// The 3-tier's DP and Flex rows of RM-1's size (L = 1000) on `curve`, into `rows` (first
// error into `status`): what each timed run computes.
void ThreeTierRows(const RankFrequencyCurve& curve, std::pair<int64_t, int64_t>& rows,
                   absl::Status& status) {
  absl::StatusOr<TierResult> result = ComputeTiers(Inputs(curve, 1000, Fig3Bandwidths()));
  if (!result.ok()) {
    status.Update(result.status());
    return;
  }
  rows = {result->three_tier.dp.rows, result->three_tier.flex.rows};
}

absl::Status PlanningTime(int64_t rows, int repeats, std::string& report, json& out) {
  absl::Status status;
  std::pair<int64_t, int64_t> zipf_rows, counted_rows;
  const Timing from_curve = TimeIt(repeats, [&] {
    ThreeTierRows(RankFrequencyCurve::Zipf(rows, 1.0), zipf_rows, status);
  });
  const auto [dp_rows, flex_rows] = zipf_rows;

  // Raw counts: the Zipf's expected counts per row over 1e9 lookups, in a seeded random order.
  const RankFrequencyCurve zipf = RankFrequencyCurve::Zipf(rows, 1.0);
  std::vector<double> counts(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) counts[r] = std::floor(1e9 * zipf.ShareOfRank(r));
  std::shuffle(counts.begin(), counts.end(), std::mt19937_64(28));
  const Timing from_counts = TimeIt(repeats, [&] {
    std::vector<double> sorted = counts;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    std::vector<RankFrequencyCurve::Step> steps;
    steps.reserve(sorted.size());
    for (double count : sorted) steps.push_back({.rows = 1, .weight = count});
    ThreeTierRows(RankFrequencyCurve::Staircase(rows, std::move(steps)), counted_rows, status);
  });
  SHARDPLAN_RETURN_IF_ERROR(status);
  const auto [counted_dp, counted_flex] = counted_rows;

  absl::StrAppend(
      &report,
      absl::StrFormat(
          "\n## Planning time: %d rows over 32 devices (L = 1000, D = 256, Zipf 1.0), %d runs\n\n"
          "| input | 3-tier DP / Flex rows | min ms | median ms |\n|---|---|---|---|\n"
          "| Zipf curve | %d / %d | %.1f | %.1f |\n"
          "| %d raw counts, shuffled (sort, curve, tiers) | %d / %d | %.1f | %.1f |\n",
          rows, repeats, dp_rows, flex_rows, from_curve.min_ms, from_curve.median_ms, rows,
          counted_dp, counted_flex, from_counts.min_ms, from_counts.median_ms));
  out["planning_time"] = {{"rows", rows},
                          {"repeats", repeats},
                          {"curve", {{"min_ms", from_curve.min_ms},
                                     {"median_ms", from_curve.median_ms},
                                     {"dp_rows", dp_rows},
                                     {"flex_rows", flex_rows}}},
                          {"raw_counts", {{"min_ms", from_counts.min_ms},
                                          {"median_ms", from_counts.median_ms},
                                          {"dp_rows", counted_dp},
                                          {"flex_rows", counted_flex}}}};
  return absl::OkStatus();
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t rows, args.GetInt("rows"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t repeats, args.GetInt("repeats"));
  if (rows < 1 || repeats < 1) {
    return absl::InvalidArgumentError("usage: --rows and --repeats must be >= 1");
  }
  std::string report = "# FlexShard tiers (planner/algorithms/flexshard/flexshard_tiers.h)\n\n";
  json out = {{"worked_case", json::array()}};
  SHARDPLAN_RETURN_IF_ERROR(WorkedCase(report, out));
  SHARDPLAN_RETURN_IF_ERROR(PlanningTime(rows, static_cast<int>(repeats), report, out));
  const std::string prefix = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(prefix + ".json", out.dump(2) + "\n"));
  return WriteReport(prefix, report);
}

Command FlexShardTiersCommand() {
  return Command{
      .group = "bench",
      .name = "flexshard_tiers",
      .summary = "FlexShard's tiers on the worked case, and planning time at 30M rows",
      .description =
          "Prints FlexShard's DP / Flex / RW tiers on the notes' worked case (E = 10M, L = 500,\n"
          "4 x 8 GPUs, B = 4096, D = 256) for Zipf 0.9, 1.0 and 1.1, with and without the Flex\n"
          "tier's communication cut, and the planning time of --rows rows over 32 devices.\n"
          "Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"rows", "N", "rows of the planning-time case", "30000000"},
              {"repeats", "N", "timed runs (minimum and median reported)", "3"},
              {"out", "PREFIX", "where the results go (.md, .json)",
               "bench/results/flexshard_tiers"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::FlexShardTiersCommand(), argc, argv);
}
