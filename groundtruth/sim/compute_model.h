#ifndef SHARDPLAN_GROUNDTRUTH_SIM_COMPUTE_MODEL_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_COMPUTE_MODEL_H_

#include <cstdint>
#include <span>

#include "groundtruth/sim/hardware_profiles.h"
#include "planner/domain/table.h"

namespace shardplan {

// What the simulated fused embedding-bag kernels of one device cost, and why.
struct ComputeBreakdown {
  double forward_ms = 0.0;
  double backward_ms = 0.0;
  double lookups = 0.0;        // sum over tables of pooling_factor * batch
  double distinct_rows = 0.0;  // rows the batch touches (and the SGD update rewrites)
  double l2_hit_rate = 0.0;    // forward row reads served by L2
  int sort_passes = 0;         // radix-sort passes over the linearized indices

  double total_ms() const { return forward_ms + backward_ms; }
};

// One device holding `tables` runs a table-batched (FBGEMM TBE-like) embedding-bag forward and
// backward with exact SGD for one global batch of `batch_size` samples, L2 flushed before. Each
// phase costs max(bytes / bandwidth, memory latency / in-flight loads, instructions / issue
// rate) plus kernel launches; the formulas are in docs/simulator.md. No tables cost 0.
ComputeBreakdown SimulateCompute(const HardwareProfile& profile, std::span<const Table> tables,
                                 int64_t batch_size);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_COMPUTE_MODEL_H_
