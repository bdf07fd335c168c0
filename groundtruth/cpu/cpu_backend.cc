#include "groundtruth/cpu/cpu_backend.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "groundtruth/cpu/embedding_bag_kernel.h"
#include "groundtruth/cpu/lookup_sampler.h"

namespace shardplan {
namespace {

constexpr int64_t kFallbackFlushBytes = int64_t{64} << 20;

uint64_t Mix(uint64_t h, uint64_t x) {
  // splitmix64 finaliser over the running hash: a stable, order-sensitive combine.
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// Lookups depend on the seed and the tables' statistics only, so a combination measured again
// (or in another order) sees the same lookups.
uint64_t LookupSeed(uint64_t seed, std::span<const Table> tables, int64_t batch_size) {
  uint64_t h = Mix(seed, static_cast<uint64_t>(batch_size));
  for (const Table& t : tables) {
    h = Mix(h, static_cast<uint64_t>(t.rows));
    h = Mix(h, static_cast<uint64_t>(t.dim));
    h = Mix(h, std::bit_cast<uint64_t>(t.pooling_factor));
    for (double b : t.access_bins) h = Mix(h, std::bit_cast<uint64_t>(b));
  }
  return h;
}

// Uniform float in [-0.05, 0.05) from the top 24 bits of one draw.
float SmallWeight(std::mt19937_64& rng) {
  return (static_cast<float>(rng() >> 40) * (1.0f / 16777216.0f) - 0.5f) * 0.1f;
}

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double WallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ParseCacheSize(const std::string& text) {
  int64_t value = 0;
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) return value << 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) return value << 20;
  return value;
}

}  // namespace

std::string CpuModelSlug(const std::string& cpuinfo) {
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string slug;
    for (char c : line.substr(colon + 1)) {
      const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (alnum) {
        slug += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      } else if (!slug.empty() && slug.back() != '-') {
        slug += '-';
      }
    }
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    if (!slug.empty()) return slug;
  }
  return "unknown";
}

int64_t LargestCacheBytes() {
  int64_t largest = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = absl::StrCat("/sys/devices/system/cpu/cpu0/cache/index", i, "/");
    std::ifstream type_file(dir + "type");
    std::ifstream size_file(dir + "size");
    if (!type_file || !size_file) continue;
    std::string type, size;
    type_file >> type;
    size_file >> size;
    if (type == "Instruction") continue;
    largest = std::max(largest, ParseCacheSize(size));
  }
  if (largest > 0) return largest;
#ifdef _SC_LEVEL3_CACHE_SIZE
  largest = std::max<int64_t>(largest, sysconf(_SC_LEVEL3_CACHE_SIZE));
  largest = std::max<int64_t>(largest, sysconf(_SC_LEVEL2_CACHE_SIZE));
#endif
  return std::max<int64_t>(largest, 0);
}

CpuBackend::CpuBackend(CpuBackendOptions options) : options_(std::move(options)) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  profile_ = absl::StrCat("cpu-", CpuModelSlug(text.str()));
  if (options_.threads > 1) absl::StrAppend(&profile_, "-", options_.threads, "t");
  int64_t flush = options_.flush_bytes;
  if (flush <= 0) {
    const int64_t cache = LargestCacheBytes();
    flush = cache > 0 ? 2 * cache : kFallbackFlushBytes;
  }
  flush_.assign(flush / sizeof(float), 1.0f);
}

std::string CpuBackend::hardware_profile() const { return profile_; }

void CpuBackend::FlushCaches() {
  // Write then read every line of a buffer larger than the last-level cache, so the next
  // repetition starts with the weights evicted (as the reference flushes the GPU's L2).
  float sum = 0.0f;
  for (float& x : flush_) {
    x = x * 0.5f + 1.0f;
    sum += x;
  }
  flush_sink_ = sum;  // volatile: the reads are not optimised away
}

float* CpuBackend::Arena(int64_t floats) {
  if (floats > arena_floats_) {
    // Timings do not depend on the values (no data-dependent branches; small normal floats),
    // so a seeded 4096-float block repeated at memory speed stands in for random weights.
    arena_.reset();
    arena_ = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(floats));
    arena_floats_ = floats;
    std::mt19937_64 rng(Mix(options_.seed, 0x77656967687473ULL));
    std::vector<float> block(4096);
    for (float& x : block) x = SmallWeight(rng);
    for (int64_t i = 0; i < floats; i += static_cast<int64_t>(block.size())) {
      std::memcpy(arena_.get() + i, block.data(),
                  sizeof(float) * std::min<int64_t>(static_cast<int64_t>(block.size()), floats - i));
    }
  }
  return arena_.get();
}

absl::StatusOr<double> CpuBackend::MeasureCompute(std::span<const Table> tables,
                                                  int64_t batch_size) {
  if (batch_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch_size must be >= 1, got ", batch_size));
  }
  if (tables.empty()) return absl::InvalidArgumentError("no tables to measure");
  if (options_.repetitions < 1 || options_.warmup < 0 || options_.threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu backend options: repetitions and threads must be >= 1 and warmup >= 0; got "
        "repetitions ", options_.repetitions, ", threads ", options_.threads, ", warmup ",
        options_.warmup));
  }
  if (options_.clock == TimingClock::kThreadCpu && options_.threads > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cpu backend options: the thread CPU clock times one thread only, but threads "
                     "is ", options_.threads, "; use the wall clock"));
  }
  double total_bytes = 0.0;
  for (const Table& t : tables) {
    if (t.rows < 1 || t.dim < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("table ", t.name, ": rows and dim must be >= 1; got rows ", t.rows,
                       ", dim ", t.dim));
    }
    if (t.element_type != ElementType::kFp32) {
      return absl::UnimplementedError(
          absl::StrCat("table ", t.name, ": the cpu backend measures fp32 tables only"));
    }
    total_bytes += static_cast<double>(t.rows) * t.dim * sizeof(float);
  }
  const double budget = static_cast<double>(options_.memory_budget_bytes);
  double scale = 1.0;
  if (total_bytes > budget) {
    if (options_.oversize == OversizePolicy::kRefuse) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the tables' weights need ", static_cast<int64_t>(total_bytes),
          " bytes, over the cpu backend's memory budget of ", options_.memory_budget_bytes,
          " bytes (raise the budget or let it scale rows down)"));
    }
    scale = budget / total_bytes;
  }

  // Untimed setup: lookups, weights, output and gradient buffers.
  std::mt19937_64 rng(LookupSeed(options_.seed, tables, batch_size));
  std::vector<std::pair<int64_t, int32_t>> shapes;
  std::vector<int64_t> indices;
  std::vector<int64_t> offsets = {0};
  std::vector<int64_t> column_offsets = {0};
  int64_t weight_bytes = 0;
  for (const Table& t : tables) {
    const int64_t rows = std::max<int64_t>(
        1, scale < 1.0 ? static_cast<int64_t>(std::floor(static_cast<double>(t.rows) * scale))
                       : t.rows);
    shapes.emplace_back(rows, t.dim);
    weight_bytes += rows * t.dim * static_cast<int64_t>(sizeof(float));
    SHARDPLAN_ASSIGN_OR_RETURN(SampledLookups lookups,
                               SampleTableLookups(t, rows, batch_size, rng));
    const int64_t base = static_cast<int64_t>(indices.size());
    indices.insert(indices.end(), lookups.indices.begin(), lookups.indices.end());
    for (int64_t b = 1; b <= batch_size; ++b) offsets.push_back(base + lookups.offsets[b]);
    column_offsets.push_back(column_offsets.back() + t.dim);
  }
  float* weights = Arena(weight_bytes / static_cast<int64_t>(sizeof(float)));
  std::vector<EmbeddingTableView> views;
  for (const auto& [rows, dim] : shapes) {
    views.push_back({weights, rows, dim});
    weights += rows * dim;
  }
  const int64_t width = column_offsets.back();
  std::vector<float> output(static_cast<size_t>(batch_size * width));
  std::vector<float> grad(output.size());
  for (float& g : grad) g = SmallWeight(rng);
  const FusedLookups fused{batch_size, indices, offsets, column_offsets};
  const float lr = options_.learning_rate;

  const int runs = options_.warmup + options_.repetitions;
  const int threads = options_.threads;
  std::vector<double> ms;
  ms.reserve(runs);
  const bool cpu_clock = options_.clock == TimingClock::kThreadCpu ||
                         (options_.clock == TimingClock::kAuto && threads == 1);
  double (*const now_ms)() = cpu_clock ? &ThreadCpuMs : &WallMs;
  std::barrier sync(threads);
  std::vector<std::jthread> workers;
  for (int part = 1; part < threads; ++part) {
    workers.emplace_back([&, part] {
      for (int r = 0; r < runs; ++r) {
        sync.arrive_and_wait();
        EmbeddingBagForward(views, fused, output.data(), part, threads);
        sync.arrive_and_wait();
        EmbeddingBagBackwardSgd(views, fused, grad.data(), lr, part, threads);
        sync.arrive_and_wait();
      }
    });
  }
  for (int r = 0; r < runs; ++r) {
    FlushCaches();
    const double start = now_ms();
    if (threads > 1) sync.arrive_and_wait();
    EmbeddingBagForward(views, fused, output.data(), 0, threads);
    if (threads > 1) sync.arrive_and_wait();
    EmbeddingBagBackwardSgd(views, fused, grad.data(), lr, 0, threads);
    if (threads > 1) sync.arrive_and_wait();
    ms.push_back(now_ms() - start);
  }
  workers.clear();  // joins

  last_.rows_scale = scale;
  last_.weight_bytes = weight_bytes;
  last_.lookups = static_cast<int64_t>(indices.size());
  last_.thread_cpu_clock = cpu_clock;
  last_.repetition_ms.assign(ms.begin() + options_.warmup, ms.end());
  return Median(last_.repetition_ms);
}

absl::StatusOr<CommMeasurement> CpuBackend::MeasureComm(const Topology* /*topology*/,
                                                        std::span<const int64_t> /*dim_sums*/,
                                                        std::span<const double> /*offsets*/,
                                                        int64_t /*batch_size*/) {
  return absl::UnimplementedError("the cpu backend has no interconnect; use sim");
}

}  // namespace shardplan
