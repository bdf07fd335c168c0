#ifndef SHARDPLAN_GROUNDTRUTH_CPU_CPU_BACKEND_H_
#define SHARDPLAN_GROUNDTRUTH_CPU_CPU_BACKEND_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "planner/domain/table.h"

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

// How a repetition is timed.
enum class TimingClock {
  // The measuring thread's CPU time (CLOCK_THREAD_CPUTIME_ID) when single-threaded, else wall.
  kAuto,
  // Wall time (steady_clock): what a dedicated machine should use.
  kWall,
  // The calling thread's CPU time: excludes time the scheduler gave to other processes, so a
  // shared machine's load inflates it far less (memory-bandwidth contention still shows).
  kThreadCpu,
};

struct CpuBackendOptions {
  // The batch a collector should pass (and record): 65536 (the reference's) takes seconds per
  // sample here; 2048 keeps a 15-table sample in the tens of milliseconds (docs/cpu-backend.md).
  int64_t batch_size = 2048;
  int warmup = 3;
  int repetitions = 10;
  uint64_t seed = 0;
  // Weights of one measurement, bytes (fp32 rows * dim * 4, summed over tables). The default is
  // the reference's per-device cap (4 GB), so its compute combinations are never scaled.
  int64_t memory_budget_bytes = int64_t{4} << 30;
  OversizePolicy oversize = OversizePolicy::kScaleRows;
  // 1 by default: single-threaded timings are reproducible on a small shared machine. More
  // threads split forward bags and backward rows; the profile name then ends in "-<n>t".
  int threads = 1;
  // Bytes written and read between repetitions to evict the caches; 0: twice the largest
  // cache the machine reports (sysfs, then sysconf), or 64 MiB when it reports none.
  int64_t flush_bytes = 0;
  float learning_rate = 0.01f;
  TimingClock clock = TimingClock::kAuto;
};

// Details of the last successful MeasureCompute, for records and logs.
struct CpuMeasurementInfo {
  double rows_scale = 1.0;  // < 1 when the tables were scaled down to fit the budget
  int64_t weight_bytes = 0;  // after scaling
  int64_t lookups = 0;
  bool thread_cpu_clock = false;  // which clock timed the repetitions
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
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology* topology,
                                              std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t batch_size) override;

  const CpuBackendOptions& options() const { return options_; }
  const CpuMeasurementInfo& last_measurement() const { return last_; }
  int64_t flush_bytes() const { return flush_.size() * sizeof(float); }

 private:
  // The weights of a call, laid out table after table in one arena that grows to the largest
  // call and is kept (values are irrelevant to timing): no allocation or initialisation per
  // call, which halves a collection's wall time per sample here (docs/cpu-backend.md).
  float* Arena(int64_t floats);
  void FlushCaches();

  CpuBackendOptions options_;
  std::string profile_;
  std::vector<float> flush_;
  volatile float flush_sink_ = 0.0f;
  std::unique_ptr<float[]> arena_;
  int64_t arena_floats_ = 0;
  CpuMeasurementInfo last_;
};

// The sanitized CPU model name of `cpuinfo` text ("model name : AMD EPYC 7B13" ->
// "amd-epyc-7b13"), or "unknown".
std::string CpuModelSlug(const std::string& cpuinfo);

// Largest cache size in bytes that this machine reports, or 0.
int64_t LargestCacheBytes();

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_CPU_CPU_BACKEND_H_
