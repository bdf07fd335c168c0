#ifndef SHARDPLAN_GROUNDTRUTH_SIM_COLLECTIVE_MODEL_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_COLLECTIVE_MODEL_H_

#include <cstdint>
#include <span>

#include "groundtruth/sim/device_links.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/topology.h"

namespace shardplan {

// The collectives of row-wise, table-row-wise and data-parallel shards (sharding_semantics.h)
// as the simulator runs them: NCCL's ring reduce-scatter, all-gather and all-reduce, and the
// all-to-all with per-link accounting (SimulateAllToAllTransfer). docs/simulator.md has the
// formulas.

// One ring reduce-scatter (kReduceScatter), all-gather (kAllGather) or all-reduce (kAllReduce)
// over `group` (devices of `links`, no repeats), of a tensor of `bytes` per device (the
// reduce-scatter's input, the all-gather's output, the all-reduce's buffer), ms. P members on
// H hosts, at least k of the group on each of them:
//   steps      = P - 1 (reduce-scatter, all-gather) or 2 (P - 1) (all-reduce), H - 1 or
//                2 (H - 1) of them across hosts
//   latency    = ring_base + (steps - inter steps) * intra_hop + inter steps * inter_hop
//   bus        = min(intra link, socket link where the group spans sockets of a staged host,
//                    k * NIC share where it spans hosts: NCCL runs one ring per NIC), each at
//                    the profile's ring efficiency
//   time       = latency + steps / P * bytes / bus
// A group of one device moves nothing and costs 0.
double RingCollectiveMs(const HardwareProfile& profile, const DeviceLinks& links,
                        Collective collective, std::span<const int32_t> group, double bytes);

// The time each device of the task's `topology` spends in the collectives of `demands`, by pass.
// Demands of the same collective, pass and peers are one call (TorchRec issues one collective
// per sharding type and process group for all its tables): a ring's tensor is the sum of their
// bytes, an all-to-all member's volume the sum of the bytes of the demands that charge it. Every
// peer of a call spends its time, whether or not it holds a shard (a reduce-scatter delivers
// every peer its samples' sums); calls run one after another. An all-to-all costs the fixed
// all-to-all latency, its transfer and each member's unpack, as the pooled one
// (SimulateComm). A DATA_PARALLEL all-reduce is followed on each replica by the SGD update of
// the full tables it holds, booked with it in the backward pass: the dense gradient is zeroed
// before the backward, then weights and gradient are read and the weights written, 4 x their
// bytes streamed, in 2 kernels. Devices, peers and bytes must be valid (SimBackend checks them).
CollectiveCosts SimulateCollectives(const HardwareProfile& profile, const Topology& topology,
                                    std::span<const CollectiveDemand> demands);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_COLLECTIVE_MODEL_H_
