#ifndef SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_

#include <cstdint>
#include <span>

#include "groundtruth/hardware_backend.h"
#include "groundtruth/sim/hardware_profiles.h"

namespace shardplan {

// The forward and backward all-to-all of the pooled embeddings (fp32) of one global batch of
// `batch_size` samples among dim_sums.size() devices, device d holding tables of total dim
// dim_sums[d] and arriving start_offsets_ms[d] after the earliest (same size as dim_sums).
// Devices fill hosts of profile.devices_per_host in order. Device d sends batch * dim_sums[d]
// * 4 / N bytes to each peer and receives batch * dim_sums[p] * 4 / N from each peer p; the
// exchange starts when the last device arrives and ends, for everyone, when the busiest link
// (or, where traffic is staged through the host, the link between CPU sockets) has moved its
// bytes:
//   forward_ms[d]  = (max offset - offset[d]) + latency + transfer + unpack[d]
//   backward_ms[d] =                             latency + transfer + unpack[d]
// (gradients retrace the same bytes). unpack[d] copies the received bytes in device memory.
CommMeasurement SimulateComm(const HardwareProfile& profile, std::span<const int64_t> dim_sums,
                             std::span<const double> start_offsets_ms, int64_t batch_size);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_COMM_MODEL_H_
