#include "groundtruth/sim/hardware_profiles.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {
namespace {

// The papers' server (NeuroShard appendix E): 8x GeForce RTX 2080 Ti on PCIe 3.0, no NVLink.
HardwareProfile Rtx2080Ti() {
  HardwareProfile p;
  p.name = "rtx2080ti";
  p.description = "8x GeForce RTX 2080 Ti (11 GB GDDR6) per host, PCIe 3.0 x16, no P2P";
  p.num_sms = 68;
  p.sm_clock_ghz = 1.545;
  p.max_warps_per_sm = 32;
  p.warp_schedulers_per_sm = 4;
  p.dram_bandwidth_gbps = 616.0;
  p.dram_latency_ns = 800.0;
  p.l2_bytes = 5.5 * 1024 * 1024;
  p.l2_bandwidth_gbps = 1500.0;
  p.l2_latency_ns = 125.0;
  p.sector_bytes = 32;
  p.kernel_launch_us = 5.0;
  p.framework_overhead_us = 200.0;
  p.devices_per_host = 8;
  p.intra_link_gbps = 15.75;
  p.sockets_per_host = 2;
  p.socket_link_gbps = 38.4;
  p.inter_link_gbps = 12.5 / 8;
  p.a2a_latency_us = 60.0;
  p.ring_base_latency_us = 8.4;
  p.intra_hop_latency_us = 5.7;  // NCCL's PCI figure: no P2P, staged through host memory
  p.inter_hop_latency_us = 9.6;
  p.stream_efficiency = 0.80;
  p.random_access_overhead_bytes = 96.0;
  p.sort_efficiency = 0.50;
  p.rows_in_flight_per_warp = 0.5;
  p.l2_usable_fraction = 0.5;
  p.link_efficiency = 0.40;
  return p;
}

// The hardware of FlexShard, OPER and ALIS: DGX A100 (8x A100 SXM4 40 GB, NVSwitch, one 200 Gb/s
// HDR InfiniBand adapter per GPU). Sources and which figures are estimates: docs/simulator.md.
HardwareProfile A100Sxm4() {
  HardwareProfile p;
  p.name = "a100-sxm4";
  p.description =
      "8x A100 SXM4 (40 GB HBM2) per host, NVLink 3 via NVSwitch, 200 Gb/s HDR InfiniBand per GPU";
  p.num_sms = 108;
  p.sm_clock_ghz = 1.41;
  p.max_warps_per_sm = 64;
  p.warp_schedulers_per_sm = 4;
  p.dram_bandwidth_gbps = 1555.0;
  p.dram_latency_ns = 850.0;
  p.l2_bytes = 40.0 * 1024 * 1024;
  p.l2_bandwidth_gbps = 3500.0;
  p.l2_latency_ns = 140.0;
  p.sector_bytes = 32;
  p.kernel_launch_us = 4.0;
  p.framework_overhead_us = 150.0;
  p.devices_per_host = 8;
  p.intra_link_gbps = 300.0;
  p.inter_link_gbps = 25.0;
  p.a2a_latency_us = 30.0;
  p.ring_base_latency_us = 8.4;
  p.intra_hop_latency_us = 3.4;  // NCCL's NVLink figure
  p.inter_hop_latency_us = 9.6;
  p.stream_efficiency = 0.85;
  p.random_access_overhead_bytes = 64.0;
  p.sort_efficiency = 0.50;
  p.rows_in_flight_per_warp = 0.5;
  p.l2_usable_fraction = 0.5;
  p.link_efficiency = 0.75;
  return p;
}

// FlexShard's cluster (papers/notes/flexshard.md section 5): 8x A100 40 GB per host on NVLink
// 3.0 in a hybrid cube mesh, a dedicated 200 Gb/s RoCE NIC per GPU. The A100 itself is
// a100-sxm4's; the links differ (docs/simulator.md, "a100-sxm4-roce").
HardwareProfile A100Sxm4Roce() {
  HardwareProfile p = A100Sxm4();
  p.name = "a100-sxm4-roce";
  p.description =
      "8x A100 SXM4 (40 GB HBM2) per host, NVLink 3 in a hybrid cube mesh, 200 Gb/s RoCE per GPU "
      "(FlexShard's cluster)";
  // Without NVSwitch each GPU's 12 links reach 4 neighbours directly; the other 3 peers take
  // two hops, so an all-to-all moves 3/7 of its bytes twice: 300 / (1 + 3/7) GB/s per GPU.
  p.intra_link_gbps = 300.0 / (1.0 + 3.0 / 7.0);
  p.inter_link_gbps = 25.0;       // 200 Gb/s per GPU
  p.inter_hop_latency_us = 12.0;  // RoCE over Ethernet switches: a little above IB's 9.6
  return p;
}

// A current NVLink machine: DGX/HGX H100 (8x H100 SXM5 80 GB, NVSwitch, 8x 400 Gb/s NICs).
HardwareProfile H100Sxm() {
  HardwareProfile p;
  p.name = "h100-sxm";
  p.description = "8x H100 SXM5 (80 GB HBM3) per host, NVLink 4 via NVSwitch, 400 Gb/s NIC per GPU";
  p.num_sms = 132;
  p.sm_clock_ghz = 1.98;
  p.max_warps_per_sm = 64;
  p.warp_schedulers_per_sm = 4;
  p.dram_bandwidth_gbps = 3350.0;
  p.dram_latency_ns = 900.0;
  p.l2_bytes = 50.0 * 1024 * 1024;
  p.l2_bandwidth_gbps = 7000.0;
  p.l2_latency_ns = 140.0;
  p.sector_bytes = 32;
  p.kernel_launch_us = 3.0;
  p.framework_overhead_us = 120.0;
  p.devices_per_host = 8;
  p.intra_link_gbps = 450.0;
  p.inter_link_gbps = 50.0;
  p.a2a_latency_us = 25.0;
  p.ring_base_latency_us = 8.4;
  p.intra_hop_latency_us = 3.4;  // NCCL's NVLink figure
  p.inter_hop_latency_us = 9.6;
  p.stream_efficiency = 0.85;
  p.random_access_overhead_bytes = 64.0;
  p.sort_efficiency = 0.50;
  p.rows_in_flight_per_warp = 0.5;
  p.l2_usable_fraction = 0.5;
  p.link_efficiency = 0.70;
  // ~370 GB/s ring bus bandwidth on 8 H100 SXM of 450 GB/s NVLink (nccl-tests issue 212).
  p.ring_efficiency = 370.0 / 450.0;
  return p;
}

}  // namespace

Topology ProfileTopology(const HardwareProfile& profile, int num_devices) {
  Topology topology;
  topology.memory_bytes.assign(static_cast<size_t>(std::max(num_devices, 0)), 0);
  topology.devices_per_host = profile.devices_per_host;
  return topology;
}

const std::vector<HardwareProfile>& HardwareProfiles() {
  static const std::vector<HardwareProfile>* const kProfiles =
      new std::vector<HardwareProfile>{A100Sxm4(), A100Sxm4Roce(), H100Sxm(), Rtx2080Ti()};
  return *kProfiles;
}

absl::StatusOr<HardwareProfile> FindHardwareProfile(const std::string& name) {
  std::vector<std::string> names;
  for (const HardwareProfile& profile : HardwareProfiles()) {
    if (profile.name == name) return profile;
    names.push_back(profile.name);
  }
  return absl::NotFoundError(absl::StrCat("unknown hardware profile \"", name,
                                          "\"; known profiles: ", absl::StrJoin(names, ", ")));
}

}  // namespace shardplan
