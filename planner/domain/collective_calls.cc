#include "planner/domain/collective_calls.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace shardplan {

std::vector<CollectiveCall> FuseCollectiveCalls(std::span<const CollectiveDemand> demands) {
  std::vector<CollectiveCall> calls;
  std::map<std::tuple<Collective, Pass, int32_t, std::vector<int32_t>>, size_t> call_of;
  for (const CollectiveDemand& demand : demands) {
    // A group is a set of devices: replicas listed in another order are the same group.
    std::vector<int32_t> peers = demand.peers;
    std::sort(peers.begin(), peers.end());
    auto [it, inserted] =
        call_of.emplace(std::make_tuple(demand.collective, demand.pass, demand.tier, peers),
                        calls.size());
    if (inserted) {
      calls.push_back(CollectiveCall{.collective = demand.collective,
                                     .pass = demand.pass,
                                     .peers = peers,
                                     .volume = std::vector<double>(peers.size(), 0.0),
                                     .replica_bytes = std::vector<double>(peers.size(), 0.0),
                                     .tier = demand.tier,
                                     .pairs = {}});
    }
    CollectiveCall& call = calls[it->second];
    call.pairs.insert(call.pairs.end(), demand.pairs.begin(), demand.pairs.end());
    call.ring_bytes += demand.bytes;
    for (int32_t device : demand.devices) {
      const auto found = std::lower_bound(call.peers.begin(), call.peers.end(), device);
      if (found == call.peers.end() || *found != device) continue;
      const size_t member = static_cast<size_t>(found - call.peers.begin());
      call.volume[member] += demand.bytes;
      if (demand.sharding == ShardingType::kDataParallel) {
        call.replica_bytes[member] += demand.bytes;
      }
    }
  }
  return calls;
}

}  // namespace shardplan
