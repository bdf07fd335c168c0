#include "planner/algorithms/oper/oper_inference_replication.h"

#include <algorithm>

#include "base/status_macros.h"

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

absl::StatusOr<std::vector<std::vector<double>>> ReplicateForInference(
    const std::vector<Partition>& partitions, const FetchCostMatrix& cost,
    std::vector<int64_t> available, const StopSignal& stop, Copies& copies) {
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

  std::vector<int32_t> position(partitions.size());
  for (size_t k = 0; k < hottest.size(); ++k) position[hottest[k]] = static_cast<int32_t>(k);
  // cursor[gid][tid]: the scan of `hottest` for gid's partitions fetched from tid resumes here.
  // What lies before it is fetched from elsewhere, local or too large for gid's spare memory
  // (which only shrinks); a partition re-routed to tid puts the cursor back to it.
  std::vector<std::vector<size_t>> cursor(devices, std::vector<size_t>(devices, 0));

  std::vector<bool> stopped(devices, false);
  int running = devices;
  while (running > 0) {
    SHARDPLAN_RETURN_IF_ERROR(stop.Check());
    for (int gid = 0; gid < devices; ++gid) {
      if (stopped[gid]) continue;
      const int tid = CostliestSource(comm[gid], gid);
      bool replicated = false;
      for (size_t& k = cursor[gid][tid < 0 ? gid : tid]; tid >= 0 && k < hottest.size(); ++k) {
        const int32_t p = hottest[k];
        const Partition& partition = partitions[p];
        if (partition.lookups <= 0.0) break;
        if (copies.path[p][gid] != tid || partition.bytes > available[gid]) continue;
        const double bytes = static_cast<double>(partition.fetch_bytes);
        const auto move = [&](int requester, int from, int to) {
          comm[requester][from] -= partition.lookups * cost.FetchUs(requester, from, bytes);
          comm[requester][to] += partition.lookups * cost.FetchUs(requester, to, bytes);
          copies.path[p][requester] = to;
          size_t& resume = cursor[requester][to];
          resume = std::min(resume, static_cast<size_t>(position[p]));
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
