#include "groundtruth/sim/comm_model.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace shardplan {

AllToAllTransfer SimulateAllToAllTransfer(const DeviceLinks& links, std::span<const int32_t> group,
                                          std::span<const double> volume) {
  const int n = static_cast<int>(group.size());
  AllToAllTransfer out;
  out.received.assign(n, 0.0);
  const double intra_bw = links.intra_bytes_per_ms();
  const double inter_bw = links.inter_bytes_per_ms();
  const int sockets = links.sockets_per_host();
  // Per (host, socket): bytes leaving the socket for another socket of the host.
  std::vector<double> cross_socket(static_cast<size_t>(links.num_hosts()) * sockets, 0.0);
  for (int i = 0; i < n; ++i) {
    const int d = group[i];
    double intra_send = 0.0, intra_recv = 0.0, inter_send = 0.0, inter_recv = 0.0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const int p = group[j];
      const bool same_host = links.host_of(p) == links.host_of(d);
      (same_host ? intra_send : inter_send) += volume[i] / n;
      (same_host ? intra_recv : inter_recv) += volume[j] / n;
      if (same_host && links.socket_of(p) != links.socket_of(d)) {
        cross_socket[links.host_of(d) * sockets + links.socket_of(d)] += volume[i] / n;
      }
    }
    out.received[i] = intra_recv + inter_recv + volume[i] / n;
    // Links are full duplex: the busier direction bounds each device.
    out.transfer_ms = std::max(out.transfer_ms, std::max(intra_send, intra_recv) / intra_bw);
    if (inter_send + inter_recv > 0.0) {
      out.transfer_ms = std::max(out.transfer_ms, std::max(inter_send, inter_recv) / inter_bw);
    }
  }
  if (links.staged_through_host()) {
    // The socket link is full duplex: each socket's outgoing bytes share one direction.
    for (double bytes : cross_socket) {
      out.transfer_ms = std::max(out.transfer_ms, bytes / links.socket_bytes_per_ms());
    }
  }
  return out;
}

AllToAllTransfer SimulateRoutedTransfer(const DeviceLinks& links, std::span<const int32_t> group,
                                        std::span<const PairBytes> pairs) {
  const int n = static_cast<int>(group.size());
  AllToAllTransfer out;
  out.received.assign(n, 0.0);
  std::vector<int> member_of(static_cast<size_t>(links.num_devices()), -1);
  for (int i = 0; i < n; ++i) member_of[group[i]] = i;
  const auto member = [&](int32_t device) {
    return device >= 0 && device < links.num_devices() ? member_of[device] : -1;
  };
  const int sockets = links.sockets_per_host();
  std::vector<double> intra_send(n, 0.0), intra_recv(n, 0.0), inter_send(n, 0.0),
      inter_recv(n, 0.0);
  std::vector<double> cross_socket(static_cast<size_t>(links.num_hosts()) * sockets, 0.0);
  for (const PairBytes& pair : pairs) {
    const int from = member(pair.from), to = member(pair.to);
    if (from < 0 || to < 0) continue;
    out.received[to] += pair.bytes;
    if (from == to) continue;  // the local chunk crosses no link
    const bool same_host = links.host_of(pair.from) == links.host_of(pair.to);
    (same_host ? intra_send : inter_send)[from] += pair.bytes;
    (same_host ? intra_recv : inter_recv)[to] += pair.bytes;
    if (same_host && links.socket_of(pair.from) != links.socket_of(pair.to)) {
      cross_socket[links.host_of(pair.from) * sockets + links.socket_of(pair.from)] += pair.bytes;
    }
  }
  for (int i = 0; i < n; ++i) {
    // Links are full duplex: the busier direction bounds each device.
    out.transfer_ms = std::max(out.transfer_ms,
                               std::max(intra_send[i], intra_recv[i]) / links.intra_bytes_per_ms());
    out.transfer_ms = std::max(out.transfer_ms,
                               std::max(inter_send[i], inter_recv[i]) / links.inter_bytes_per_ms());
  }
  if (links.staged_through_host()) {
    for (double bytes : cross_socket) {
      out.transfer_ms = std::max(out.transfer_ms, bytes / links.socket_bytes_per_ms());
    }
  }
  return out;
}

CommMeasurement SimulateComm(const HardwareProfile& profile, const Topology& topology,
                             std::span<const int64_t> dim_sums,
                             std::span<const double> start_offsets_ms, int64_t batch_size) {
  const int n = static_cast<int>(dim_sums.size());
  CommMeasurement out;
  out.forward_ms.assign(n, 0.0);
  out.backward_ms.assign(n, 0.0);
  // Without a column-level shard anywhere, TorchRec has no table-wise/column-wise sharding and
  // issues no pooled all-to-all: nothing to pay, not even its latency.
  if (std::all_of(dim_sums.begin(), dim_sums.end(), [](int64_t d) { return d <= 0; })) return out;

  std::vector<int32_t> devices(n);
  std::iota(devices.begin(), devices.end(), 0);
  // Bytes of pooled outputs (fp32, kActivationBytes) device d owns for the whole batch.
  std::vector<double> volume(n);
  for (int d = 0; d < n; ++d) {
    volume[d] = static_cast<double>(std::max<int64_t>(batch_size, 0)) *
                static_cast<double>(std::max<int64_t>(dim_sums[d], 0)) * kActivationBytes;
  }
  const AllToAllTransfer transfer =
      SimulateAllToAllTransfer(DeviceLinks(profile, topology), devices, volume);

  double latest = 0.0;
  for (int d = 0; d < n; ++d) {
    const double offset = d < static_cast<int>(start_offsets_ms.size()) ? start_offsets_ms[d] : 0.0;
    latest = std::max(latest, offset);
  }
  const double latency_ms = profile.a2a_latency_us * 1e-3;
  const double copy_bw = GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.stream_efficiency;
  for (int d = 0; d < n; ++d) {
    const double offset = d < static_cast<int>(start_offsets_ms.size()) ? start_offsets_ms[d] : 0.0;
    const double unpack_ms = 2.0 * transfer.received[d] / copy_bw;  // read + write
    out.backward_ms[d] = latency_ms + transfer.transfer_ms + unpack_ms;
    out.forward_ms[d] = (latest - offset) + out.backward_ms[d];
  }
  return out;
}

}  // namespace shardplan
