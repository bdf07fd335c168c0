// ALIS on drifting co-occurrence traffic (issue 30; docs/alis.md, "Results"): every variant
// and baseline over drifting traces with fixed seeds, the spread across updates with Levene's
// test, the alpha / beta sensitivity on the tuning seed, and one update at 10M rows.

#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/alis_drift_run.h"
#include "bench/bench_support.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"

namespace shardplan::bench {
namespace {

using json = nlohmann::json;
using offline::Command;

// Tuning knobs applied to every co-occurrence method (--propagation-slack, --dw-by-requests).
struct Tuning {
  double propagation_slack = 0.5;
  bool increment_by_requests = false;
  double alpha = 0.5;
  double beta = 0.8;
};

std::vector<DriftMethod> Methods(const Tuning& tuning) {
  auto with = [](const char* label, alis::Method method) {
    DriftMethod m{.label = label};
    m.params.method = method;
    return m;
  };
  std::vector<DriftMethod> methods = {
      with("alis", alis::Method::kAlis),     with("base", alis::Method::kBase),
      with("full", alis::Method::kFull),     with("vanilla", alis::Method::kVanilla),
      with("static", alis::Method::kStatic), with("periodic", alis::Method::kPeriodic),
      with("greedy", alis::Method::kGreedy)};
  DriftMethod literal = with("alis, W decay 1 (paper's W += dW)", alis::Method::kAlis);
  literal.params.weight_decay = 1.0;
  methods.push_back(literal);
  for (DriftMethod& m : methods) {
    m.params.propagation_slack = tuning.propagation_slack;
    m.params.increment_by_requests = tuning.increment_by_requests;
    m.params.alpha = tuning.alpha;
    m.params.beta = tuning.beta;
  }
  methods.push_back({.label = "range", .fixed = DriftMethod::Fixed::kRange});
  methods.push_back({.label = "hash", .fixed = DriftMethod::Fixed::kHash});
  return methods;
}

struct Aggregate {
  std::vector<double> mean_latency, p99_latency, mean_fan_out, p99_fan_out;  // per window
  std::vector<double> after_latency, stale_latency, after_fan_out, stale_fan_out;
  std::vector<double> rows_moved, bytes_moved, update_ms, imbalance, iterations;
  std::vector<double> centred_latency;  // per-window mean latency minus its seed's mean
};

std::map<std::string, Aggregate> AggregateRecords(const std::vector<WindowRecord>& records,
                                                  const std::vector<uint64_t>& seeds_of) {
  std::map<std::string, Aggregate> out;
  std::map<std::pair<std::string, uint64_t>, std::vector<double>> per_seed;
  for (size_t i = 0; i < records.size(); ++i) {
    const WindowRecord& r = records[i];
    Aggregate& a = out[r.method];
    a.mean_latency.push_back(r.cost.mean_latency_us);
    a.p99_latency.push_back(r.cost.p99_latency_us);
    a.mean_fan_out.push_back(r.cost.mean_fan_out);
    a.p99_fan_out.push_back(r.cost.p99_fan_out);
    (r.since_drift == 0 ? a.stale_latency : a.after_latency).push_back(r.cost.mean_latency_us);
    (r.since_drift == 0 ? a.stale_fan_out : a.after_fan_out).push_back(r.cost.mean_fan_out);
    a.rows_moved.push_back(static_cast<double>(r.rows_moved));
    a.bytes_moved.push_back(static_cast<double>(r.bytes_moved));
    a.update_ms.push_back(r.update_ms);
    a.imbalance.push_back(r.row_imbalance);
    a.iterations.push_back(r.iterations);
    per_seed[{r.method, seeds_of[i]}].push_back(r.cost.mean_latency_us);
  }
  for (auto& [key, values] : per_seed) {
    const double mean = Mean(values);
    for (double v : values) out[key.first].centred_latency.push_back(v - mean);
  }
  return out;
}

struct TraceRun {
  std::vector<WindowRecord> records;
  std::vector<uint64_t> seed_of;  // per record
};

absl::StatusOr<TraceRun> RunSeeds(const DriftTrace& trace, const std::vector<uint64_t>& seeds,
                                  const std::vector<DriftMethod>& methods, Progress& progress,
                                  const std::string& label, int& step, int steps) {
  TraceRun run;
  for (uint64_t seed : seeds) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        std::vector<WindowRecord> records,
        RunDriftTrace(trace, seed, methods, [&](int) { progress.Step(label, ++step, steps); }));
    for (WindowRecord& r : records) {
      run.records.push_back(std::move(r));
      run.seed_of.push_back(seed);
    }
  }
  return run;
}

std::string MethodsTable(const std::map<std::string, Aggregate>& by_method,
                         const std::vector<DriftMethod>& methods, json& out) {
  std::string table =
      "| method | mean latency us (all) | after one update on the drift | first window after a "
      "drift | P99 latency us | mean fan-out (all / after) | P99 fan-out | std of window mean "
      "latency across updates us | rows moved per update | MiB moved | update CPU ms (median) | "
      "passes | row imbalance |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const DriftMethod& m : methods) {
    const Aggregate& a = by_method.at(m.label);
    const double std_dev = SampleStdDev(a.centred_latency);
    absl::StrAppend(
        &table,
        absl::StrFormat("| %s | %.2f | %.2f | %.2f | %.2f | %.3f / %.3f | %.1f | %.3f | %.0f | "
                        "%.2f | %.1f | %.1f | %.3f |\n",
                        m.label, Mean(a.mean_latency), Mean(a.after_latency), Mean(a.stale_latency),
                        Mean(a.p99_latency), Mean(a.mean_fan_out), Mean(a.after_fan_out),
                        Mean(a.p99_fan_out), std_dev, Mean(a.rows_moved),
                        Mean(a.bytes_moved) / (1 << 20), Median(a.update_ms), Mean(a.iterations),
                        Mean(a.imbalance)));
    out["methods"].push_back({{"method", m.label},
                              {"mean_latency_us", Mean(a.mean_latency)},
                              {"after_drift_latency_us", Mean(a.after_latency)},
                              {"first_after_drift_latency_us", Mean(a.stale_latency)},
                              {"p99_latency_us", Mean(a.p99_latency)},
                              {"mean_fan_out", Mean(a.mean_fan_out)},
                              {"after_drift_fan_out", Mean(a.after_fan_out)},
                              {"p99_fan_out", Mean(a.p99_fan_out)},
                              {"latency_std_across_updates_us", std_dev},
                              {"rows_moved_per_update", Mean(a.rows_moved)},
                              {"bytes_moved_per_update", Mean(a.bytes_moved)},
                              {"update_ms_median", Median(a.update_ms)},
                              {"passes", Mean(a.iterations)},
                              {"row_imbalance", Mean(a.imbalance)},
                              {"window_mean_latency_us", a.mean_latency}});
  }
  return table;
}

std::string LeveneTable(const std::map<std::string, Aggregate>& by_method, json& out) {
  std::string table =
      "\n| spread of window mean latency (seed means removed) | alis std | other std | "
      "Levene W | p |\n|---|---|---|---|---|\n";
  for (const char* other : {"base", "vanilla", "full", "greedy", "periodic"}) {
    const std::vector<double>& mine = by_method.at("alis").centred_latency;
    const std::vector<double>& theirs = by_method.at(other).centred_latency;
    const LeveneResult levene = LeveneTest({mine, theirs});
    absl::StrAppend(&table, absl::StrFormat("| alis vs %s | %.3f | %.3f | %.2f | %.3g |\n", other,
                                            SampleStdDev(mine), SampleStdDev(theirs),
                                            levene.statistic, levene.p_value));
    out["levene"].push_back({{"against", other},
                             {"alis_std", SampleStdDev(mine)},
                             {"other_std", SampleStdDev(theirs)},
                             {"statistic", levene.statistic},
                             {"p_value", levene.p_value}});
  }
  return table;
}

absl::StatusOr<std::string> Sensitivity(const DriftTrace& trace, uint64_t seed, Progress& progress,
                                        int& step, int steps, json& out) {
  std::string table =
      "\n| swept | value | mean latency us | std across updates us | update CPU ms (median) | "
      "rows moved |\n|---|---|---|---|---|---|\n";
  const std::vector<std::pair<std::string, std::vector<double>>> sweeps = {
      {"alpha", {0.1, 0.3, 0.5, 0.7, 0.9}}, {"beta", {0.2, 0.4, 0.6, 0.8, 1.0}}};  // the paper's
  for (const auto& [swept, values] : sweeps) {
    for (double v : values) {
      DriftMethod m{.label = "alis"};
      m.params.method = alis::Method::kAlis;
      (swept == "alpha" ? m.params.alpha : m.params.beta) = v;
      SHARDPLAN_ASSIGN_OR_RETURN(
          TraceRun run, RunSeeds(trace, {seed}, {m}, progress, "sensitivity", step, steps));
      const Aggregate a = AggregateRecords(run.records, run.seed_of).at("alis");
      absl::StrAppend(&table,
                      absl::StrFormat("| %s | %.1f | %.2f | %.3f | %.1f | %.0f |\n", swept, v,
                                      Mean(a.mean_latency), SampleStdDev(a.centred_latency),
                                      Median(a.update_ms), Mean(a.rows_moved)));
      out["sensitivity"].push_back({{"parameter", swept},
                                    {"value", v},
                                    {"mean_latency_us", Mean(a.mean_latency)},
                                    {"latency_std_us", SampleStdDev(a.centred_latency)},
                                    {"update_ms_median", Median(a.update_ms)},
                                    {"rows_moved", Mean(a.rows_moved)}});
    }
  }
  return table;
}

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

// One ALIS update (and a full re-shard for comparison) at `rows` rows over 8 shards.
absl::StatusOr<std::string> ScaleRun(int64_t rows, int64_t requests, Progress& progress,
                                     json& out) {
  traces::DriftingTrafficOptions options;
  options.rows_per_field = rows / options.fields;
  options.groups = rows / 100;
  options.drift_every = requests;
  SHARDPLAN_ASSIGN_OR_RETURN(traces::DriftingTraffic traffic,
                             traces::DriftingTraffic::Create(options));
  SHARDPLAN_ASSIGN_OR_RETURN(RowShardMap space, RowShardMap::Create(traffic.tables(), 8));
  auto collect = [&]() -> absl::StatusOr<CooccurrenceStats> {
    SHARDPLAN_ASSIGN_OR_RETURN(CooccurrenceCollector collector, CooccurrenceCollector::Create({}));
    std::vector<uint64_t> request;
    for (int64_t i = 0; i < requests; ++i) {
      traffic.Next(request);
      collector.Add(request);
    }
    return std::move(collector).Finish();
  };
  auto ms_since = [](double start) { return ThreadCpuMs() - start; };
  progress.Working("scale", 1, 1, "collecting window 0");
  SHARDPLAN_ASSIGN_OR_RETURN(CooccurrenceStats first, collect());
  progress.Working("scale", 1, 1, "bootstrap re-shard");
  alis::Params params;
  double start = ThreadCpuMs();
  const RowShardMap bootstrap = alis::FullReshard(space, first, params, 0);
  const double bootstrap_ms = ms_since(start);
  first = CooccurrenceStats{};
  progress.Working("scale", 1, 1, "collecting window 1");
  SHARDPLAN_ASSIGN_OR_RETURN(CooccurrenceStats second, collect());
  progress.Working("scale", 1, 1, "alis update");
  const double rss_before = PeakRssMiB();
  start = ThreadCpuMs();
  SHARDPLAN_ASSIGN_OR_RETURN(alis::Update update,
                             alis::Replan(bootstrap, alis::State{}, second, params));
  const double alis_ms = ms_since(start);
  const double rss_after_alis = PeakRssMiB();
  params.method = alis::Method::kFull;
  progress.Working("scale", 1, 1, "full re-shard");
  start = ThreadCpuMs();
  SHARDPLAN_ASSIGN_OR_RETURN(alis::Update full,
                             alis::Replan(bootstrap, alis::State{}, second, params));
  const double full_ms = ms_since(start);
  const std::string report = absl::StrFormat(
      "\n## Scale: %d rows (%d fields), 8 shards, windows of %d requests\n\n"
      "| step | CPU ms | rows moved | peak RSS MiB after |\n|---|---|---|---|\n"
      "| bootstrap (full re-shard of window 0) | %.0f | - | %.0f |\n"
      "| one alis update (window 1: %d distinct rows, alpha 0.5: %d) | %.0f | %d | %.0f |\n"
      "| one full re-shard + vote (alis_full) | %.0f | %d | %.0f |\n\n"
      "Window statistics %.0f MiB; the map %.0f MiB; ALIS state after the update %.0f MiB "
      "(W over %d rows + 1 history plan).\n",
      space.total_rows(), options.fields, requests, bootstrap_ms, rss_before,
      static_cast<int64_t>(second.rows.size()), update.stats.window_rows, alis_ms,
      update.delta.rows_moved, rss_after_alis, full_ms, full.delta.rows_moved, PeakRssMiB(),
      second.MemoryBytes() / 1048576.0, space.MemoryBytes() / 1048576.0,
      update.stats.state_bytes / 1048576.0, update.stats.weight_rows);
  out["scale"] = {{"rows", space.total_rows()},
                  {"requests_per_window", requests},
                  {"bootstrap_ms", bootstrap_ms},
                  {"alis_update_ms", alis_ms},
                  {"full_update_ms", full_ms},
                  {"alis_rows_moved", update.delta.rows_moved},
                  {"peak_rss_mib_before_update", rss_before},
                  {"peak_rss_mib_after_alis", rss_after_alis},
                  {"peak_rss_mib_end", PeakRssMiB()},
                  {"window_stats_bytes", second.MemoryBytes()},
                  {"state_bytes", update.stats.state_bytes}};
  return report;
}

absl::StatusOr<std::vector<uint64_t>> Seeds(const OptionValues& args, const std::string& flag) {
  std::vector<uint64_t> seeds;
  for (absl::string_view part : absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty())) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(part, &seed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("usage: --", flag, ": \"", part, "\" is not a seed"));
    }
    seeds.push_back(seed);
  }
  return seeds;
}

absl::Status Run(const OptionValues& args) {
  DriftTrace trace;
  SHARDPLAN_ASSIGN_OR_RETURN(trace.window_requests, args.GetInt("window-requests"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t windows, args.GetInt("windows"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t rows_per_field, args.GetInt("rows-per-field"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t groups, args.GetInt("groups"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t scale_rows, args.GetInt("scale-rows"));
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t drift_every_windows, args.GetInt("drift-every-windows"));
  SHARDPLAN_ASSIGN_OR_RETURN(trace.traffic.redraw_share, args.GetDouble("redraw-share"));
  const bool sweep = !args.Has("skip-sweep");
  SHARDPLAN_ASSIGN_OR_RETURN(int64_t scale_requests, args.GetInt("scale-requests"));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<uint64_t> seeds, Seeds(args, "seeds"));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<uint64_t> tune, Seeds(args, "tune-seed"));
  if (windows < 4 || trace.window_requests < 1 || seeds.empty() || tune.size() != 1 ||
      drift_every_windows < 1) {
    return absl::InvalidArgumentError(
        "usage: --windows >= 4, --window-requests >= 1, --drift-every-windows >= 1, --seeds "
        "non-empty, one --tune-seed");
  }
  trace.drift_every_windows = static_cast<int>(drift_every_windows);
  trace.windows = static_cast<int>(windows);
  trace.traffic.rows_per_field = rows_per_field;
  trace.traffic.groups = groups;
  Tuning tuning;
  SHARDPLAN_ASSIGN_OR_RETURN(tuning.propagation_slack, args.GetDouble("propagation-slack"));
  SHARDPLAN_ASSIGN_OR_RETURN(tuning.alpha, args.GetDouble("alpha"));
  SHARDPLAN_ASSIGN_OR_RETURN(tuning.beta, args.GetDouble("beta"));
  tuning.increment_by_requests = args.Has("dw-by-requests");
  const std::vector<DriftMethod> methods = Methods(tuning);
  const int sweep_runs = sweep ? 10 : 0;
  const int steps = static_cast<int>((seeds.size() + 1 + sweep_runs) * (windows - 1));
  Progress progress(steps);
  int step = 0;
  json out = {{"config",
               {{"fields", trace.traffic.fields},
                {"rows_per_field", rows_per_field},
                {"groups", groups},
                {"noise_share", trace.traffic.noise_share},
                {"redraw_share", trace.traffic.redraw_share},
                {"window_requests", trace.window_requests},
                {"drift_every_windows", trace.drift_every_windows},
                {"windows", windows},
                {"shards", trace.shards},
                {"seeds", seeds},
                {"tune_seed", tune[0]}}}};
  std::string report = absl::StrFormat(
      "# ALIS on drifting co-occurrence traffic (bench/alis_drift)\n\n"
      "%d fields x %d rows (%d rows, 64 B each), %d planted groups (Zipf 1.0), noise share "
      "%.2f (Zipf 1.05 ids), %.0f%% of the groups re-drawn every %d windows of %d requests; 8 "
      "shards on one 8x A100 NVLink host (planner/traffic/request_cost.h). Each plan is made "
      "from window w - 1 and measured on window w (held out); windows 2..%d, seeds %s "
      "(parameters chosen on seed %d, reported below it separately).\n",
      trace.traffic.fields, rows_per_field, trace.traffic.fields * rows_per_field, groups,
      trace.traffic.noise_share, 100 * trace.traffic.redraw_share, trace.drift_every_windows,
      trace.window_requests, windows - 1, args.Get("seeds"), tune[0]);
  SHARDPLAN_ASSIGN_OR_RETURN(
      TraceRun reported, RunSeeds(trace, seeds, methods, progress, "report seeds", step, steps));
  json reported_json;
  absl::StrAppend(
      &report, "\n## Report seeds\n\n",
      MethodsTable(AggregateRecords(reported.records, reported.seed_of), methods, reported_json),
      LeveneTable(AggregateRecords(reported.records, reported.seed_of), reported_json));
  out["report_seeds"] = reported_json;
  SHARDPLAN_ASSIGN_OR_RETURN(TraceRun tuned,
                             RunSeeds(trace, tune, methods, progress, "tune seed", step, steps));
  json tuned_json;
  absl::StrAppend(
      &report, "\n## Tuning seed\n\n",
      MethodsTable(AggregateRecords(tuned.records, tuned.seed_of), methods, tuned_json));
  out["tune_seed"] = tuned_json;
  if (sweep) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::string sensitivity,
                               Sensitivity(trace, tune[0], progress, step, steps, out));
    absl::StrAppend(&report, "\n## Sensitivity (tuning seed; the other parameter at its default)\n",
                    sensitivity);
  }
  if (scale_rows > 0) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::string scale,
                               ScaleRun(scale_rows, scale_requests, progress, out));
    absl::StrAppend(&report, scale);
  }
  std::cerr << "\n";
  const std::string prefix = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(prefix + ".json", out.dump(2) + "\n"));
  return WriteReport(prefix, report);
}

Command AlisDriftCommand() {
  return Command{
      .group = "bench",
      .name = "alis_drift",
      .summary = "ALIS, its variants and baselines on drifting co-occurrence traces",
      .description =
          "Runs alis, base, full, vanilla, static, periodic, greedy, range and hash over drifting\n"
          "traces (lab/traces/drifting_traffic.h), measuring each plan on the next window; the\n"
          "spread across updates with Levene's test; alpha and beta swept on the tuning seed; and\n"
          "one update at --scale-rows rows (0: skipped). Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"seeds", "LIST", "the reported seeds", "1,2,3"},
              {"tune-seed", "SEED", "the seed the parameters were chosen on", "0"},
              {"windows", "N", "windows per trace", "14"},
              {"window-requests", "N", "requests per window", "20000"},
              {"rows-per-field", "N", "rows of each of the 26 fields", "20000"},
              {"groups", "N", "planted co-occurrence groups", "3000"},
              {"drift-every-windows", "N", "windows between drifts", "2"},
              {"redraw-share", "X", "share of the groups re-drawn at a drift", "0.3"},
              OptionSpec::Switch("skip-sweep", "no alpha / beta sensitivity"),
              {"alpha", "X", "alpha of every ALIS method", "0.5"},
              {"beta", "X", "beta of every ALIS method", "0.8"},
              {"propagation-slack", "X", "extra balance slack while propagating", "0.5"},
              OptionSpec::Switch("dw-by-requests", "dW x the row's requests (else constant)"),
              {"scale-rows", "N", "rows of the scale run (0: none)", "10000000"},
              {"scale-requests", "N", "requests per window of the scale run", "500000"},
              {"out", "PREFIX", "where the results go (.md, .json)", "bench/results/alis_drift"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::AlisDriftCommand(), argc, argv);
}
