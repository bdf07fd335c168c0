#ifndef SHARDPLAN_GROUNDTRUTH_HARDWARE_BACKEND_H_
#define SHARDPLAN_GROUNDTRUTH_HARDWARE_BACKEND_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/domain/cost_model.h"  // CollectiveCosts
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan {

// Per-device all-to-all times of one measurement, ms.
struct CommMeasurement {
  std::vector<double> forward_ms;
  std::vector<double> backward_ms;
};

// Ground truth (docs/design.md section 3.2): what a shard set or an all-to-all really costs on some
// hardware, measured (cpu) or simulated (sim). Planners never see it; cost data and benchmarks
// do. Implementations need not be thread-safe: a collector owns its backend.
class HardwareBackend {
 public:
  virtual ~HardwareBackend() = default;

  // Marks the start of cost-data sample `sample_id`: a backend with seeded measurement noise
  // restarts its noise stream from (seed, sample_id), so a sample measured in a resumed
  // collection draws exactly what it would have drawn in one uninterrupted run. Real hardware
  // ignores it.
  virtual void BeginSample(int64_t sample_id) {}

  // "cpu" or "sim".
  virtual std::string name() const = 0;
  // The hardware the numbers describe, e.g. "sim-rtx2080ti-8" or "cpu-<model name>".
  virtual std::string hardware_profile() const = 0;

  // Forward + backward (with the SGD update) time, ms, of one device holding `tables` (each
  // table's dim is the shard's column count), for one global batch of `batch_size` samples:
  // the label of NeuroShard's compute cost data.
  virtual absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                                int64_t batch_size) = 0;

  // The forward pass alone (inference), ms, of the same kernels. UNIMPLEMENTED where the
  // backend measures only whole training steps.
  virtual absl::StatusOr<double> MeasureForwardCompute(std::span<const Table> tables,
                                                       int64_t batch_size) {
    return absl::UnimplementedError(
        "this hardware backend measures training steps only, not a forward pass alone");
  }

  // Per-device forward and backward all-to-all times, ms, when device d holds tables of total
  // dim `dim_sums[d]` and reaches the forward all-to-all `start_offsets_ms[d]` after the
  // earliest device: the label of NeuroShard's comm cost data. Forward times exclude the
  // device's own offset but include waiting for later devices. The devices sit on the hosts of
  // `topology` (a task's: its device count and devices per host; the links are the hardware's
  // own, whatever bandwidths the task assumes); null means the backend's own machines (sim: hosts
  // of the profile's devices_per_host), which is what cost-data collection measures.
  // UNIMPLEMENTED where the backend has no interconnect (cpu).
  virtual absl::StatusOr<CommMeasurement> MeasureComm(const Topology* topology,
                                                      std::span<const int64_t> dim_sums,
                                                      std::span<const double> start_offsets_ms,
                                                      int64_t batch_size) = 0;

  // Whether MeasureCollectives answers: the backend models the interconnect over which row-wise,
  // table-row-wise and data-parallel shards exchange partial sums and gradients. Ground truth
  // costs those sharding types only then (cpu: no).
  virtual bool measures_collectives() const { return false; }

  // Per-device forward and backward time, ms, that the devices of `topology` (the task's) spend
  // in the collectives `demands` describe (planner/domain/sharding_semantics.h: reduce-scatter,
  // all-gather, all-reduce, cross-host all-to-all), one entry per device. UNIMPLEMENTED unless
  // measures_collectives().
  virtual absl::StatusOr<CollectiveCosts> MeasureCollectives(
      const Topology& topology, std::span<const CollectiveDemand> demands) {
    return absl::UnimplementedError("this hardware backend cannot measure collectives");
  }
};

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_HARDWARE_BACKEND_H_
