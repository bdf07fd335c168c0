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
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

int64_t Flag(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  shardplan::CpuBackendOptions options;
  options.batch_size = Flag(argc, argv, "--batch", options.batch_size);
  options.threads = static_cast<int>(Flag(argc, argv, "--threads", options.threads));
  options.warmup = static_cast<int>(Flag(argc, argv, "--warmup", options.warmup));
  options.repetitions = static_cast<int>(Flag(argc, argv, "--reps", options.repetitions));
  if (Flag(argc, argv, "--wall", 0) != 0) options.clock = shardplan::TimingClock::kWall;
  const bool fresh = Flag(argc, argv, "--fresh", 0) != 0;
  const int repeat = static_cast<int>(Flag(argc, argv, "--repeat", 5));
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
