#ifndef SHARDPLAN_PLANNER_DOMAIN_TOPOLOGY_H_
#define SHARDPLAN_PLANNER_DOMAIN_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
// TorchRec's defaults (planner/constants.py), used when a topology leaves them at 0.
inline constexpr double kDefaultIntraHostBandwidthGiBps = 600.0;
inline constexpr double kDefaultInterHostBandwidthGiBps = 12.5;

// The devices a task is planned onto. Capacities are per device so that heterogeneous
// clusters are representable.
struct Topology {
  std::vector<int64_t> memory_bytes;  // one entry per device; size() is the device count
  // The capacities the task named, before its memory.storage_reservation (ReserveStorage);
  // empty when nothing is reserved (memory_bytes are then the named capacities).
  std::vector<int64_t> requested_memory_bytes;
  int32_t devices_per_host = 0;       // 0: every device on one host
  double intra_host_bandwidth_gibps = kDefaultIntraHostBandwidthGiBps;
  double inter_host_bandwidth_gibps = kDefaultInterHostBandwidthGiBps;
  // An all-reduce's bandwidth across hosts; 0: inter_host_bandwidth_gibps * local_world_size()
  // (TorchRec's: one NIC per device). all_reduce_bandwidth() resolves it.
  double all_reduce_bandwidth_gibps = 0.0;
  // What one row fetched from another device costs (fetch_cost.h): a latency within a host and
  // across hosts (microseconds, 0: bandwidth only), or per-fetch costs replacing the whole
  // matrix (num_devices x num_devices microseconds, row-major by requester; empty: none).
  double intra_host_latency_us = 0.0;
  double inter_host_latency_us = 0.0;
  std::vector<double> fetch_cost_us;
  // The hardware the devices are ("h100-sxm", "rtx2080ti", ...; "" not named). Planners do not
  // read it: the server chooses the cost model by it (docs/server.md, "Defaults").
  std::string hardware;

  int num_devices() const { return static_cast<int>(memory_bytes.size()); }
  // Devices per host with 0 resolved to the device count.
  int local_world_size() const;
  // Hosts: devices 0..L-1 are host 0, L..2L-1 host 1, ... (the last one may hold fewer).
  int num_hosts() const;
  int host_of(int device) const { return device / local_world_size(); }
  // The devices on `device`'s host, and those with its local rank (one per host), in order:
  // TABLE_ROW_WISE's two process groups.
  std::vector<int32_t> DevicesOnHostOf(int device) const;
  std::vector<int32_t> DevicesWithLocalRankOf(int device) const;
  // True when every device sits on one host (all-to-all over the intra-host links).
  bool single_host() const { return local_world_size() >= num_devices(); }
  double all_reduce_bandwidth() const;
  // The capacities the task named: requested_memory_bytes, else memory_bytes.
  const std::vector<int64_t>& named_memory_bytes() const {
    return requested_memory_bytes.empty() ? memory_bytes : requested_memory_bytes;
  }
};

// Holds back `fraction` of every device (TorchRec's storage reservation): memory_bytes become
// floor((1 - fraction) x capacity) and requested_memory_bytes keep the named capacities. A
// fraction of 0 changes nothing. `fraction` must lie in [0, 1) (ValidateTask checks it).
void ReserveStorage(double fraction, Topology& topology);

// Builds a topology from the API's fields (proto and JSON alike): `num_devices` devices of
// `device_memory_gib` each, unless `per_device_memory_gib` lists every capacity. Bandwidths of 0
// take the defaults (the all-reduce's stays 0: derived). Errors name the field:
// "topology.per_device_memory_gib: ...".
absl::StatusOr<Topology> MakeTopology(int64_t num_devices, double device_memory_gib,
                                      const std::vector<double>& per_device_memory_gib,
                                      int64_t devices_per_host, double intra_host_bandwidth_gibps,
                                      double inter_host_bandwidth_gibps,
                                      double all_reduce_bandwidth_gibps = 0.0);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TOPOLOGY_H_
