#ifndef SHARDPLAN_GROUNDTRUTH_SIM_HARDWARE_PROFILES_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_HARDWARE_PROFILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/topology.h"

namespace shardplan {

// One simulated machine: a GPU model and the links between GPUs. Bandwidths are in GB/s
// (10^9 bytes/s, as spec sheets give them), latencies in ns or us as named. Every constant and
// its source is listed in docs/simulator.md; the "model" fields are the simulator's calibration
// knobs (efficiencies, in-flight depth), documented there too.
struct HardwareProfile {
  std::string name;         // "rtx2080ti"
  std::string description;  // "8x GeForce RTX 2080 Ti, PCIe 3.0 x16, no P2P"

  // --- GPU (spec sheet / whitepaper) ---
  int num_sms = 0;
  double sm_clock_ghz = 0.0;         // boost clock
  int max_warps_per_sm = 0;          // resident warps per SM
  int warp_schedulers_per_sm = 4;    // warp instructions issued per SM per cycle
  double dram_bandwidth_gbps = 0.0;  // peak device memory bandwidth
  double dram_latency_ns = 0.0;      // random global-load latency under load
  double l2_bytes = 0.0;
  double l2_bandwidth_gbps = 0.0;
  double l2_latency_ns = 0.0;
  int sector_bytes = 32;          // L2/DRAM transaction granularity
  double kernel_launch_us = 0.0;  // launch + drain of one kernel in a stream
  // Host-side work of one fused forward + backward call (framework dispatch, autograd).
  double framework_overhead_us = 0.0;

  // --- Interconnect ---
  int devices_per_host = 8;
  double intra_link_gbps = 0.0;  // per device and direction
  // Where intra-host traffic is staged through host memory (GeForce boards have no PCIe
  // peer-to-peer, so NCCL bounces through pinned host memory), the GPUs split evenly over
  // `sockets_per_host` CPU sockets and traffic between sockets crosses the socket link
  // (per direction, all links together). 0 / 1 when the GPUs talk directly (NVSwitch).
  int sockets_per_host = 1;
  double socket_link_gbps = 0.0;
  double inter_link_gbps = 0.0;  // per device and direction (one NIC per GPU)
  double a2a_latency_us = 0.0;   // fixed cost of one all-to-all (launch, handshakes)
  // NCCL's ring latency model (src/graph/tuning.cc, ring / Simple protocol): a ring collective of
  // s steps, s_inter of them across hosts, costs base + (s - s_inter) * intra_hop +
  // s_inter * inter_hop before its bytes.
  double ring_base_latency_us = 0.0;
  double intra_hop_latency_us = 0.0;  // one ring step over the intra-host link (NVLink or PCIe)
  double inter_hop_latency_us = 0.0;  // one ring step across hosts (network)

  // --- Model calibration (dimensionless) ---
  double stream_efficiency = 0.0;  // fraction of peak DRAM bandwidth for streams
  // A random row access costs its sectors plus this many bytes' worth of DRAM time (row
  // activation, command slots): narrow rows waste more of the bandwidth.
  double random_access_overhead_bytes = 0.0;
  double sort_efficiency = 0.0;  // fraction of peak DRAM bandwidth for radix-sort passes
  // Outstanding row loads per resident warp slot, achieved occupancy included (Little's law).
  double rows_in_flight_per_warp = 0.0;
  double l2_usable_fraction = 0.0;  // share of L2 that can hold embedding rows
  double link_efficiency = 0.0;     // achieved / peak link bandwidth in NCCL all-to-all
  // Achieved / peak link bandwidth of NCCL's ring reduce-scatter, all-gather and all-reduce, where
  // published benchmarks of the machine give it (docs/simulator.md, "Collectives against
  // published benchmarks"); 0: link_efficiency.
  double ring_efficiency = 0.0;
};

// GB/s (10^9 bytes per second, as the profiles give bandwidths) in bytes per ms.
inline double GBpsToBytesPerMs(double gbps) { return gbps * 1e6; }

// `num_devices` devices on the profile's own machines: hosts of profile.devices_per_host, filled
// in order. What the simulator measures when no task says where the devices sit (cost-data
// collection, the observations).
Topology ProfileTopology(const HardwareProfile& profile, int num_devices);

// The named profiles, sorted by name.
const std::vector<HardwareProfile>& HardwareProfiles();

// The profile called `name`; NOT_FOUND listing the known names otherwise.
absl::StatusOr<HardwareProfile> FindHardwareProfile(const std::string& name);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_HARDWARE_PROFILES_H_
