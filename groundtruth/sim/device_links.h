#ifndef SHARDPLAN_GROUNDTRUTH_SIM_DEVICE_LINKS_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_DEVICE_LINKS_H_

#include "groundtruth/sim/hardware_profiles.h"
#include "planner/domain/topology.h"

namespace shardplan {

// Where simulated devices sit and what their links achieve. Hosts come from the topology (a
// task's, or the profile's machines: ProfileTopology); everything else from the profile: each
// device has its own intra-host link and its own share of the host's NICs (inter_link_gbps is
// per device), and where traffic is staged through host memory a host's GPU slots split evenly
// over its CPU sockets. A host has max(profile.devices_per_host, the topology's devices per host)
// slots and its devices take them in order, so 4 devices of one host sit on the first socket of
// an 8-slot machine, as they always did.
class DeviceLinks {
 public:
  DeviceLinks(const HardwareProfile& profile, const Topology& topology);

  int num_devices() const { return num_devices_; }
  int num_hosts() const { return num_hosts_; }
  int host_of(int device) const { return device / devices_per_host_; }
  int sockets_per_host() const { return sockets_per_host_; }
  // The CPU socket of the device's host that its traffic is staged through (0 .. sockets - 1).
  int socket_of(int device) const;
  // True when intra-host traffic crosses CPU sockets (no GPU peer-to-peer).
  bool staged_through_host() const { return socket_bytes_per_ms_ > 0.0; }

  // Achieved bandwidths (peak x link efficiency), bytes per ms and direction: one device's
  // intra-host link, one device's share of the inter-host NICs, one host's socket link.
  double intra_bytes_per_ms() const { return intra_bytes_per_ms_; }
  double inter_bytes_per_ms() const { return inter_bytes_per_ms_; }
  double socket_bytes_per_ms() const { return socket_bytes_per_ms_; }

 private:
  int num_devices_;
  int devices_per_host_;
  int num_hosts_;
  int sockets_per_host_;
  int devices_per_socket_;
  double intra_bytes_per_ms_;
  double inter_bytes_per_ms_;
  double socket_bytes_per_ms_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_DEVICE_LINKS_H_
