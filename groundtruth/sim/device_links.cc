#include "groundtruth/sim/device_links.h"

#include <algorithm>

namespace shardplan {

DeviceLinks::DeviceLinks(const HardwareProfile& profile, const Topology& topology)
    : num_devices_(topology.num_devices()),
      devices_per_host_(std::max(1, topology.local_world_size())),
      num_hosts_((num_devices_ + devices_per_host_ - 1) / devices_per_host_),
      sockets_per_host_(std::max(1, profile.sockets_per_host)),
      intra_bytes_per_ms_(GBpsToBytesPerMs(profile.intra_link_gbps) * profile.link_efficiency),
      inter_bytes_per_ms_(GBpsToBytesPerMs(profile.inter_link_gbps) * profile.link_efficiency),
      socket_bytes_per_ms_(profile.socket_link_gbps > 0.0
                               ? GBpsToBytesPerMs(profile.socket_link_gbps) *
                                     profile.link_efficiency
                               : 0.0) {
  const int slots = std::max(std::max(1, profile.devices_per_host), devices_per_host_);
  devices_per_socket_ = (slots + sockets_per_host_ - 1) / sockets_per_host_;
}

int DeviceLinks::socket_of(int device) const {
  return std::min((device % devices_per_host_) / devices_per_socket_, sockets_per_host_ - 1);
}

}  // namespace shardplan
