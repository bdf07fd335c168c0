#include "groundtruth/sim/comm_model.h"

#include <algorithm>
#include <vector>

namespace shardplan {
namespace {

constexpr double kActivationBytes = 4.0;  // fp32 pooled outputs

double GBpsToBytesPerMs(double gbps) { return gbps * 1e6; }

}  // namespace

CommMeasurement SimulateComm(const HardwareProfile& profile, std::span<const int64_t> dim_sums,
                             std::span<const double> start_offsets_ms, int64_t batch_size) {
  const int n = static_cast<int>(dim_sums.size());
  CommMeasurement out;
  out.forward_ms.assign(n, 0.0);
  out.backward_ms.assign(n, 0.0);
  if (n == 0) return out;

  const int per_host = std::max(1, profile.devices_per_host);
  const int num_hosts = (n + per_host - 1) / per_host;
  auto host_of = [per_host](int d) { return d / per_host; };
  std::vector<double> volume(n);  // bytes of pooled outputs device d owns for the whole batch
  for (int d = 0; d < n; ++d) {
    volume[d] = static_cast<double>(std::max<int64_t>(batch_size, 0)) *
                static_cast<double>(std::max<int64_t>(dim_sums[d], 0)) * kActivationBytes;
  }

  const double intra_bw = GBpsToBytesPerMs(profile.intra_link_gbps) * profile.link_efficiency;
  const double inter_bw = GBpsToBytesPerMs(profile.inter_link_gbps) * profile.link_efficiency;
  const int per_socket = std::max(1, per_host / std::max(1, profile.sockets_per_host));
  auto socket_of = [per_host, per_socket](int d) { return (d % per_host) / per_socket; };
  const bool staged_through_host = profile.socket_link_gbps > 0.0;
  std::vector<double> received(n, 0.0);
  const int sockets = std::max(1, profile.sockets_per_host);
  // Per (host, socket): bytes leaving the socket for another socket of the host.
  std::vector<double> cross_socket(static_cast<size_t>(num_hosts) * sockets, 0.0);
  double transfer_ms = 0.0;
  for (int d = 0; d < n; ++d) {
    double intra_send = 0.0, intra_recv = 0.0, inter_send = 0.0, inter_recv = 0.0;
    for (int p = 0; p < n; ++p) {
      if (p == d) continue;
      const bool same_host = host_of(p) == host_of(d);
      (same_host ? intra_send : inter_send) += volume[d] / n;
      (same_host ? intra_recv : inter_recv) += volume[p] / n;
      if (same_host && socket_of(p) != socket_of(d)) {
        cross_socket[host_of(d) * sockets + std::min(socket_of(d), sockets - 1)] += volume[d] / n;
      }
    }
    received[d] = intra_recv + inter_recv + volume[d] / n;
    // Links are full duplex: the busier direction bounds each device.
    transfer_ms = std::max(transfer_ms, std::max(intra_send, intra_recv) / intra_bw);
    if (inter_send + inter_recv > 0.0) {
      transfer_ms = std::max(transfer_ms, std::max(inter_send, inter_recv) / inter_bw);
    }
  }
  if (staged_through_host) {
    // The socket link is full duplex: each socket's outgoing bytes share one direction.
    const double socket_bw = GBpsToBytesPerMs(profile.socket_link_gbps) * profile.link_efficiency;
    for (double bytes : cross_socket) transfer_ms = std::max(transfer_ms, bytes / socket_bw);
  }

  double latest = 0.0;
  for (int d = 0; d < n; ++d) {
    const double offset = d < static_cast<int>(start_offsets_ms.size()) ? start_offsets_ms[d] : 0.0;
    latest = std::max(latest, offset);
  }
  const double latency_ms = profile.a2a_latency_us * 1e-3;
  const double copy_bw = GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.stream_efficiency;
  for (int d = 0; d < n; ++d) {
    const double offset = d < static_cast<int>(start_offsets_ms.size()) ? start_offsets_ms[d] : 0.0;
    const double unpack_ms = 2.0 * received[d] / copy_bw;  // read + write
    out.backward_ms[d] = latency_ms + transfer_ms + unpack_ms;
    out.forward_ms[d] = (latest - offset) + out.backward_ms[d];
  }
  return out;
}

}  // namespace shardplan
