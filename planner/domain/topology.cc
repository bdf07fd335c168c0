#include "planner/domain/topology.h"

#include <cmath>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace shardplan {
namespace {

// MakeTopology allocates one entry per device before ValidateTask can apply its (configurable)
// TaskLimits::max_devices, so it refuses absurd counts itself.
constexpr int64_t kMaxTopologyDevices = int64_t{1} << 20;

// llround is only defined for results that fit int64: 2^33 GiB is 2^63 bytes.
constexpr double kMaxCapacityGiB = 8589934592.0;

absl::StatusOr<int64_t> CapacityBytes(absl::string_view field, double gib) {
  if (!std::isfinite(gib)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": must be finite, got ", gib));
  }
  if (gib <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": must be positive, got ", gib));
  }
  if (gib >= kMaxCapacityGiB) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", gib, " GiB is too large (at most 2^33 GiB)"));
  }
  const int64_t bytes = std::llround(gib * kBytesPerGiB);
  if (bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", gib, " GiB is less than one byte"));
  }
  return bytes;
}

absl::StatusOr<double> Bandwidth(absl::string_view field, double gibps, double default_gibps) {
  if (!std::isfinite(gibps) || gibps < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be a finite number >= 0 (0: default), got ", gibps));
  }
  return gibps == 0 ? default_gibps : gibps;
}

}  // namespace

int Topology::local_world_size() const {
  return devices_per_host > 0 ? devices_per_host : num_devices();
}

int Topology::num_hosts() const {
  const int local = local_world_size();
  return local > 0 ? (num_devices() + local - 1) / local : 0;
}

void ReserveStorage(double fraction, Topology& topology) {
  if (!(fraction > 0 && fraction < 1)) return;
  topology.requested_memory_bytes = topology.named_memory_bytes();
  for (size_t d = 0; d < topology.memory_bytes.size(); ++d) {
    const double usable =
        std::floor((1.0 - fraction) * static_cast<double>(topology.requested_memory_bytes[d]));
    topology.memory_bytes[d] = static_cast<int64_t>(usable);
  }
}

double Topology::all_reduce_bandwidth() const {
  return all_reduce_bandwidth_gibps > 0 ? all_reduce_bandwidth_gibps
                                        : inter_host_bandwidth_gibps * local_world_size();
}

absl::StatusOr<Topology> MakeTopology(int64_t num_devices, double device_memory_gib,
                                      const std::vector<double>& per_device_memory_gib,
                                      int64_t devices_per_host, double intra_host_bandwidth_gibps,
                                      double inter_host_bandwidth_gibps,
                                      double all_reduce_bandwidth_gibps) {
  if (num_devices < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology.num_devices: must be at least 1, got ", num_devices));
  }
  if (num_devices > kMaxTopologyDevices) {
    return absl::ResourceExhaustedError(absl::StrCat("topology.num_devices: ", num_devices,
                                                     " devices exceed the limit of ",
                                                     kMaxTopologyDevices));
  }
  Topology topology;
  if (!per_device_memory_gib.empty()) {
    // num_devices may be left at 0 when the list gives every capacity.
    if (num_devices != 0 && static_cast<int64_t>(per_device_memory_gib.size()) != num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat("topology.per_device_memory_gib: has ", per_device_memory_gib.size(),
                       " entries but topology.num_devices is ", num_devices));
    }
    if (static_cast<int64_t>(per_device_memory_gib.size()) > kMaxTopologyDevices) {
      return absl::ResourceExhaustedError(
          absl::StrCat("topology.per_device_memory_gib: ", per_device_memory_gib.size(),
                       " devices exceed the limit of ", kMaxTopologyDevices));
    }
    topology.memory_bytes.reserve(per_device_memory_gib.size());
    for (size_t i = 0; i < per_device_memory_gib.size(); ++i) {
      absl::StatusOr<int64_t> bytes = CapacityBytes(
          absl::StrCat("topology.per_device_memory_gib[", i, "]"), per_device_memory_gib[i]);
      if (!bytes.ok()) return bytes.status();
      topology.memory_bytes.push_back(*bytes);
    }
  } else if (num_devices > 0) {
    absl::StatusOr<int64_t> bytes = CapacityBytes("topology.device_memory_gib", device_memory_gib);
    if (!bytes.ok()) return bytes.status();
    topology.memory_bytes.assign(static_cast<size_t>(num_devices), *bytes);
  }
  // num_devices == 0 with no list: an empty topology, which ValidateTask rejects by name.

  if (devices_per_host < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology.devices_per_host: must be >= 0 (0: all devices on one host), got ",
                     devices_per_host));
  }
  if (devices_per_host > kMaxTopologyDevices) {
    return absl::InvalidArgumentError(absl::StrCat("topology.devices_per_host: must be at most ",
                                                   kMaxTopologyDevices, ", got ",
                                                   devices_per_host));
  }
  topology.devices_per_host = static_cast<int32_t>(devices_per_host);

  absl::StatusOr<double> intra =
      Bandwidth("topology.intra_host_bandwidth_gibps", intra_host_bandwidth_gibps,
                kDefaultIntraHostBandwidthGiBps);
  if (!intra.ok()) return intra.status();
  absl::StatusOr<double> inter =
      Bandwidth("topology.inter_host_bandwidth_gibps", inter_host_bandwidth_gibps,
                kDefaultInterHostBandwidthGiBps);
  if (!inter.ok()) return inter.status();
  absl::StatusOr<double> all_reduce = Bandwidth("topology.all_reduce_bandwidth_gibps",
                                                all_reduce_bandwidth_gibps, 0.0);
  if (!all_reduce.ok()) return all_reduce.status();
  topology.intra_host_bandwidth_gibps = *intra;
  topology.inter_host_bandwidth_gibps = *inter;
  topology.all_reduce_bandwidth_gibps = *all_reduce;
  return topology;
}

std::vector<int32_t> Topology::DevicesOnHostOf(int device) const {
  std::vector<int32_t> devices;
  for (int d = 0; d < num_devices(); ++d) {
    if (host_of(d) == host_of(device)) devices.push_back(d);
  }
  return devices;
}

std::vector<int32_t> Topology::DevicesWithLocalRankOf(int device) const {
  std::vector<int32_t> devices;
  const int local = local_world_size();
  for (int d = device % local; d < num_devices(); d += local) devices.push_back(d);
  return devices;
}

}  // namespace shardplan
