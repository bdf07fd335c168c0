// shardplan_cpu_probe: times a few fixed table combinations on the cpu backend, each measured
// `--repeat` times, to document per-sample cost and the median's stability
// (docs/cpu-backend->md). Not a collector: `shardplan data collect --backend cpu` is.
//
//   shardplan_cpu_probe [--batch 2048] [--threads 1] [--repeat 5] [--warmup 3] [--reps 10]
//                       [--fresh 0]   (1: a new backend, so freshly allocated weights, per call)
//                       [--wall 0]    (1: time with the wall clock, not the thread CPU clock)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/command_line.h"
#include "base/exit_codes.h"
#include "base/option_help.h"
#include "base/option_values.h"
#include "groundtruth/cpu/cpu_backend.h"

namespace {

using shardplan::Table;

// dlrm_datasets' aggregate distinct-row histogram (locality_stats_2021.txt, 856 tables).
std::vector<double> AggregateBins() {
  std::vector<double> bins = {0.473, 0.152, 0.139, 0.112, 0.072, 0.032, 0.011, 0.005, 0.002, 0.001};
  bins.resize(shardplan::kNumAccessBins, 0.0);
  return bins;
}

std::vector<Table> Combination(int count, int64_t rows, std::vector<int32_t> dims,
                               double pooling) {
  std::vector<Table> tables;
  for (int i = 0; i < count; ++i) {
    Table t;
    t.name = absl::StrCat("t", i);
    t.rows = rows;
    t.dim = dims[i % dims.size()];
    t.pooling_factor = pooling;
    t.access_bins = AggregateBins();
    tables.push_back(t);
  }
  return tables;
}

struct Preset {
  const char* label;
  std::vector<Table> tables;
};

constexpr char kProgram[] = "shardplan_cpu_probe";

}  // namespace

int main(int argc, char** argv) {
  using shardplan::OptionSpec;
  shardplan::CpuBackendOptions options;
  const std::vector<OptionSpec> specs = {
      {"batch", "B", "batch size", absl::StrCat(options.batch_size)},
      {"threads", "N", "threads per measurement", absl::StrCat(options.threads)},
      {"repeat", "N", "measurements of each combination", "5"},
      {"warmup", "N", "untimed passes per measurement", absl::StrCat(options.warmup)},
      {"reps", "N", "timed passes per measurement (the median is kept)",
       absl::StrCat(options.repetitions)},
      {"fresh", "0|1", "1: a new backend, so freshly allocated weights, per measurement", "0"},
      {"wall", "0|1", "1: time with the wall clock, not the thread CPU clock", "0"},
      OptionSpec::Switch("help", "this help", 'h'),
  };
  absl::StatusOr<shardplan::OptionValues> flags =
      shardplan::ParseOptions(specs, std::vector<std::string>(argv + 1, argv + argc),
                              {.allow_positionals = false, .repeated_option_is_error = true});
  if (!flags.ok()) return shardplan::ReportError(flags.status(), kProgram, kProgram);
  if (flags->Has("help")) {
    std::printf("Usage: %s [options]\n\nOptions:\n%s", kProgram,
                shardplan::FormatOptionsHelp(specs).c_str());
    return shardplan::kExitOk;
  }
  absl::Status bad_value;  // the first malformed value
  const auto number = [&flags, &bad_value](const char* name) -> int64_t {
    absl::StatusOr<int64_t> value = flags->GetInt(name);
    if (!value.ok() && bad_value.ok()) bad_value = value.status();
    return value.value_or(0);
  };
  options.batch_size = number("batch");
  options.threads = static_cast<int>(number("threads"));
  const int repeat = static_cast<int>(number("repeat"));
  options.warmup = static_cast<int>(number("warmup"));
  options.repetitions = static_cast<int>(number("reps"));
  const bool fresh = number("fresh") != 0;
  const bool wall = number("wall") != 0;
  if (bad_value.ok() && repeat < 1) bad_value = shardplan::UsageError("--repeat must be >= 1");
  if (!bad_value.ok()) return shardplan::ReportError(bad_value, kProgram, kProgram);
  if (wall) options.clock = shardplan::TimingClock::kWall;
  auto backend = std::make_unique<shardplan::CpuBackend>(options);
  std::printf("profile %s batch %lld threads %d warmup %d reps %d flush %lld MiB clock %s\n",
              backend->hardware_profile().c_str(), static_cast<long long>(options.batch_size),
              options.threads, options.warmup, options.repetitions,
              static_cast<long long>(backend->flush_bytes() >> 20),
              options.clock == shardplan::TimingClock::kWall || options.threads > 1
                  ? "wall"
                  : "thread-cpu");

  const std::vector<Preset> presets = {
      {"1 table, 100K rows, dim 16, pf 2", Combination(1, 100000, {16}, 2.0)},
      {"4 tables, 1M rows, dims 16-128, pf 15", Combination(4, 1000000, {16, 32, 64, 128}, 15.0)},
      {"8 tables, 1M rows, dim 64, pf 15", Combination(8, 1000000, {64}, 15.0)},
      {"15 tables, 500K rows, dims 4-128, pf 25",
       Combination(15, 500000, {4, 8, 16, 32, 64, 128}, 25.0)},
  };
  for (const Preset& preset : presets) {
    std::vector<double> medians;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeat; ++r) {
      if (fresh) backend = std::make_unique<shardplan::CpuBackend>(options);
      absl::StatusOr<double> ms = backend->MeasureCompute(preset.tables, options.batch_size);
      if (!ms.ok()) {
        std::fprintf(stderr, "%s: %s\n", preset.label, std::string(ms.status().message()).c_str());
        return 1;
      }
      medians.push_back(*ms);
    }
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    std::vector<double> sorted = medians;
    std::sort(sorted.begin(), sorted.end());
    const double mid = sorted[sorted.size() / 2];
    const shardplan::CpuMeasurementInfo& info = backend->last_measurement();
    std::printf("%-42s lookups %8lld weights %6.0f MiB scale %.3f | medians ms:",
                preset.label, static_cast<long long>(info.lookups),
                static_cast<double>(info.weight_bytes) / (1 << 20), info.rows_scale);
    for (double m : medians) std::printf(" %.3f", m);
    std::printf(" | mid %.3f spread (max-min)/mid %.1f%% | wall %.2f s/call\n", mid,
                100.0 * (*hi - *lo) / mid, wall_s / repeat);
  }
  return 0;
}
