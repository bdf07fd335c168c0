#ifndef SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_

#include <cstdint>
#include <span>
#include <vector>

#include "groundtruth/hardware_backend.h"
#include "groundtruth/sim/device_links.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/topology.h"

namespace shardplan {

// The transfer phase of an all-to-all among `group` (devices of `links`, no repeats), member i
// putting volume[i] bytes in and sending volume[i] / group.size() of them to every member (its
// own slice stays put). Per-link accounting: a device's traffic to and from members of its host
// crosses its intra-host link, to and from other hosts its NIC share, both full duplex (the
// busier direction bounds it); where traffic is staged through host memory, the bytes leaving a
// CPU socket for another socket of the host share that host's socket link. The exchange ends for
// everyone when the busiest link is done.
struct AllToAllTransfer {
  double transfer_ms = 0.0;
  std::vector<double> received;  // bytes member i ends up with, its own slice included
};
AllToAllTransfer SimulateAllToAllTransfer(const DeviceLinks& links, std::span<const int32_t> group,
                                          std::span<const double> volume);

// The transfer phase of a routed all-to-all among `group` (devices of `links`, no repeats):
// `pairs` say who sends whom what (from == to: a local chunk, which only its unpack pays).
// The same per-link accounting as SimulateAllToAllTransfer. Pairs naming a device outside the
// group are ignored (SimBackend refuses them).
AllToAllTransfer SimulateRoutedTransfer(const DeviceLinks& links, std::span<const int32_t> group,
                                        std::span<const PairBytes> pairs);

// The forward and backward all-to-all of the pooled embeddings (fp32) of one global batch of
// `batch_size` samples among the devices of `topology` (dim_sums.size() == its device count),
// device d holding tables of total dim dim_sums[d] and arriving start_offsets_ms[d] after the
// earliest (same size as dim_sums). Device d sends batch * dim_sums[d] * 4 / N bytes to each
// peer and receives batch * dim_sums[p] * 4 / N from each peer p; the exchange starts when the
// last device arrives and ends, for everyone, when the busiest link has moved its bytes
// (SimulateAllToAllTransfer):
//   forward_ms[d]  = (max offset - offset[d]) + latency + transfer + unpack[d]
//   backward_ms[d] =                             latency + transfer + unpack[d]
// (gradients retrace the same bytes). unpack[d] copies the received bytes in device memory.
// When every dim sum is 0 no device holds a column-level shard, and no all-to-all runs: 0 ms.
CommMeasurement SimulateComm(const HardwareProfile& profile, const Topology& topology,
                             std::span<const int64_t> dim_sums,
                             std::span<const double> start_offsets_ms, int64_t batch_size);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_
