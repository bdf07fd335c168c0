#ifndef SHARDPLAN_COSTMODELS_BACKENDS_CPU_CPU_BACKEND_H_
#define SHARDPLAN_COSTMODELS_BACKENDS_CPU_CPU_BACKEND_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/backends/hardware_backend.h"
#include "planner/table.h"

namespace shardplan {

// What to do when a measurement's tables exceed the memory budget.
enum class OversizePolicy {
  // Scale every table's rows by the same factor so the weights fit, keeping each table's
  // access histogram and pooling factor (the accessed-row set is unchanged; only the span of
  // row ids shrinks). The factor is reported in CpuMeasurementInfo::rows_scale.
  kScaleRows,
  // Refuse with RESOURCE_EXHAUSTED.
  kRefuse,
};

struct CpuBackendOptions {
  // The batch a collector should pass (and record): 65536 (the reference's) takes seconds per
  // sample here; 2048 keeps a 15-table sample in the tens of milliseconds (docs/cpu-backend.md).
  int64_t batch_size = 2048;
  int warmup = 3;
  int repetitions = 10;
  uint64_t seed = 0;
  // Weights of one measurement, bytes (fp32 rows * dim * 4, summed over tables).
  int64_t memory_budget_bytes = int64_t{2} << 30;
  OversizePolicy oversize = OversizePolicy::kScaleRows;
  // 1 by default: single-threaded timings are reproducible on a small shared machine. More
  // threads split forward bags and backward rows; the profile name then ends in "-<n>t".
  int threads = 1;
  // Bytes written and read between repetitions to evict the caches; 0: twice the largest
  // cache the machine reports (sysfs, then sysconf), or 64 MiB when it reports none.
  int64_t flush_bytes = 0;
  // Keep weights across calls, keyed by (rows, dim), while they fit the memory budget.
  bool cache_weights = true;
  float learning_rate = 0.01f;
};

// Details of the last successful MeasureCompute, for records and logs.
struct CpuMeasurementInfo {
  double rows_scale = 1.0;  // < 1 when the tables were scaled down to fit the budget
  int64_t weight_bytes = 0;  // after scaling
  int64_t lookups = 0;
  std::vector<double> repetition_ms;
};

// Ground truth measured on this machine's CPU with the project's fused embedding-bag kernel
// (embedding_bag_kernel.h): lookups drawn from each table's access histogram (lookup_sampler.h,
// outside the timed region), then `warmup` untimed and `repetitions` timed forward + backward
// + SGD passes, caches flushed before each; the label is the median, ms.
class CpuBackend : public HardwareBackend {
 public:
  explicit CpuBackend(CpuBackendOptions options = {});

  std::string name() const override { return "cpu"; }
  // "cpu-" + the sanitized /proc/cpuinfo model name, e.g. "cpu-amd-epyc".
  std::string hardware_profile() const override;

  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override;
  // UNIMPLEMENTED: a CPU has no interconnect to measure.
  absl::StatusOr<CommMeasurement> MeasureComm(std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t batch_size) override;

  const CpuBackendOptions& options() const { return options_; }
  const CpuMeasurementInfo& last_measurement() const { return last_; }
  int64_t flush_bytes() const { return flush_.size() * sizeof(float); }

 private:
  // Weights for the tables of one call, from the cache or freshly initialised.
  std::vector<std::vector<float>*> AcquireWeights(const std::vector<std::pair<int64_t, int32_t>>&
                                                      shapes);
  void FlushCaches();

  CpuBackendOptions options_;
  std::string profile_;
  std::vector<float> flush_;
  volatile float flush_sink_ = 0.0f;
  // (rows, dim, occurrence within a call) -> weights; occurrence keeps a repeated table apart.
  std::map<std::tuple<int64_t, int32_t, int>, std::vector<float>> weights_;
  uint64_t calls_ = 0;
  CpuMeasurementInfo last_;
};

// The sanitized CPU model name of `cpuinfo` text ("model name : AMD EPYC 7B13" ->
// "amd-epyc-7b13"), or "unknown".
std::string CpuModelSlug(const std::string& cpuinfo);

// Largest cache size in bytes that this machine reports, or 0.
int64_t LargestCacheBytes();

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_BACKENDS_CPU_CPU_BACKEND_H_
