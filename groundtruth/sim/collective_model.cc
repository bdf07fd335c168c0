#include "groundtruth/sim/collective_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "groundtruth/sim/comm_model.h"
#include "planner/domain/collective_calls.h"

namespace shardplan {
namespace {

// Streamed passes over a data-parallel replica's bytes around its all-reduce: zeroing the dense
// gradient, then reading weights and gradient and writing the weights (SGD).
constexpr double kReplicaUpdatePasses = 4.0;
constexpr int kReplicaUpdateKernels = 2;  // the gradient's memset and the update

// The hosts `group` spans, and the fewest members it has on one of them.
struct GroupHosts {
  int hosts = 0;
  int min_members = 0;
  bool spans_sockets = false;  // on one host, across its CPU sockets
};

GroupHosts HostsOf(const DeviceLinks& links, std::span<const int32_t> group) {
  std::map<int, int> members;
  std::set<std::pair<int, int>> sockets;
  for (int32_t device : group) {
    ++members[links.host_of(device)];
    sockets.insert({links.host_of(device), links.socket_of(device)});
  }
  GroupHosts out;
  out.hosts = static_cast<int>(members.size());
  out.min_members = static_cast<int>(group.size());
  for (const auto& [host, count] : members) out.min_members = std::min(out.min_members, count);
  out.spans_sockets = sockets.size() > members.size();
  return out;
}

// Per member of an all-to-all call: the fixed latency, the transfer until the busiest link is
// done, and the member's unpack of what it received (as the pooled all-to-all, SimulateComm).
std::vector<double> AllToAllMs(const HardwareProfile& profile, const DeviceLinks& links,
                               const CollectiveCall& call) {
  std::vector<double> ms(call.peers.size(), 0.0);
  if (call.peers.size() <= 1) return ms;
  // A routed layout's exchange says who sends whom what; the others spread evenly.
  const AllToAllTransfer transfer =
      call.pairs.empty() ? SimulateAllToAllTransfer(links, call.peers, call.volume)
                         : SimulateRoutedTransfer(links, call.peers, call.pairs);
  const double copy_bw = GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.stream_efficiency;
  for (size_t i = 0; i < call.peers.size(); ++i) {
    ms[i] = profile.a2a_latency_us * 1e-3 + transfer.transfer_ms +
            2.0 * transfer.received[i] / copy_bw;  // unpack: read + write
  }
  return ms;
}

}  // namespace

double RingCollectiveMs(const HardwareProfile& profile, const DeviceLinks& links,
                        Collective collective, std::span<const int32_t> group, double bytes) {
  const int members = static_cast<int>(group.size());
  if (members <= 1) return 0.0;
  const GroupHosts hosts = HostsOf(links, group);
  const int passes = collective == Collective::kAllReduce ? 2 : 1;
  const int steps = passes * (members - 1);
  const int inter_steps = passes * (hosts.hosts - 1);
  const double latency_us = profile.ring_base_latency_us +
                            (steps - inter_steps) * profile.intra_hop_latency_us +
                            inter_steps * profile.inter_hop_latency_us;
  double bus = links.intra_bytes_per_ms();
  if (hosts.spans_sockets && links.staged_through_host()) {
    bus = std::min(bus, links.socket_bytes_per_ms());
  }
  if (hosts.hosts > 1) bus = std::min(bus, hosts.min_members * links.inter_bytes_per_ms());
  // The links' figures are at the all-to-all's efficiency; rings may reach another.
  if (profile.ring_efficiency > 0.0 && profile.link_efficiency > 0.0) {
    bus *= profile.ring_efficiency / profile.link_efficiency;
  }
  return latency_us * 1e-3 + static_cast<double>(steps) / members * bytes / bus;
}

CollectiveCosts SimulateCollectives(const HardwareProfile& profile, const Topology& topology,
                                    std::span<const CollectiveDemand> demands) {
  const int n = topology.num_devices();
  CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  const DeviceLinks links(profile, topology);

  const std::vector<CollectiveCall> calls = FuseCollectiveCalls(demands);
  const double stream_bw =
      GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.stream_efficiency;
  const double launch_ms = profile.kernel_launch_us * 1e-3;
  for (const CollectiveCall& call : calls) {
    std::vector<double>& pass = call.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms;
    if (call.collective == Collective::kAllToAll) {
      const std::vector<double> ms = AllToAllMs(profile, links, call);
      for (size_t i = 0; i < call.peers.size(); ++i) pass[call.peers[i]] += ms[i];
      continue;
    }
    const double ms =
        RingCollectiveMs(profile, links, call.collective, call.peers, call.ring_bytes);
    for (size_t i = 0; i < call.peers.size(); ++i) {
      pass[call.peers[i]] += ms;
      if (call.replica_bytes[i] > 0.0) {
        pass[call.peers[i]] += kReplicaUpdatePasses * call.replica_bytes[i] / stream_bw +
                               kReplicaUpdateKernels * launch_ms;
      }
    }
  }
  return costs;
}

}  // namespace shardplan
