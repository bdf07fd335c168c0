#include "planner/algorithms/oper/oper_inference_replication.h"

#include <algorithm>

namespace shardplan::oper {
namespace {

// The device `gid` spends the most communication on (ties: the lower device); -1 when it
// fetches nothing remotely. The diagonal (local lookups) is not communication.
int CostliestSource(const std::vector<double>& row, int gid) {
  int tid = -1;
  for (int j = 0; j < static_cast<int>(row.size()); ++j) {
    if (j == gid || row[j] <= 0.0) continue;
    if (tid < 0 || row[j] > row[tid]) tid = j;
  }
  return tid;
}

}  // namespace

std::vector<std::vector<double>> ReplicateForInference(const std::vector<Partition>& partitions,
                                                       const FetchCostMatrix& cost,
                                                       std::vector<int64_t> available,
                                                       Copies& copies) {
  const int devices = cost.num_devices();
  std::vector<std::vector<double>> comm = CommunicationMatrix(partitions, copies, cost);
  // (C10) The partitions each device fetches most per byte of its spare memory first (every device
  // looks up A_k of each): what saves the most communication for the memory it takes.
  std::vector<int32_t> hottest(partitions.size());
  for (int32_t p = 0; p < static_cast<int32_t>(partitions.size()); ++p) hottest[p] = p;
  const auto density = [&](int32_t p) {
    return partitions[p].lookups / static_cast<double>(std::max<int64_t>(partitions[p].bytes, 1));
  };
  std::stable_sort(hottest.begin(), hottest.end(),
                   [&](int32_t a, int32_t b) { return density(a) > density(b); });

  std::vector<bool> stopped(devices, false);
  int running = devices;
  while (running > 0) {
    for (int gid = 0; gid < devices; ++gid) {
      if (stopped[gid]) continue;
      const int tid = CostliestSource(comm[gid], gid);
      bool replicated = false;
      for (int32_t p : hottest) {
        const Partition& partition = partitions[p];
        if (tid < 0 || partition.lookups <= 0.0) break;
        if (copies.path[p][gid] != tid || partition.bytes > available[gid]) continue;
        const double bytes = static_cast<double>(partition.fetch_bytes);
        const auto move = [&](int requester, int from, int to) {
          comm[requester][from] -= partition.lookups * cost.FetchUs(requester, from, bytes);
          comm[requester][to] += partition.lookups * cost.FetchUs(requester, to, bytes);
          copies.path[p][requester] = to;
        };
        move(gid, tid, gid);
        copies.AddReplica(partition, p, gid);
        available[gid] -= partition.bytes;
        // Every other device fetches from the new replica where that is cheaper.
        for (int i = 0; i < devices; ++i) {
          const int source = copies.path[p][i];
          if (i != gid && cost.FetchUs(i, gid, bytes) < cost.FetchUs(i, source, bytes)) {
            move(i, source, gid);
          }
        }
        replicated = true;
        break;
      }
      if (!replicated) {
        stopped[gid] = true;
        --running;
      }
    }
  }
  return comm;
}

}  // namespace shardplan::oper
