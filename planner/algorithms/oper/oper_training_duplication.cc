#include "planner/algorithms/oper/oper_training_duplication.h"

#include <algorithm>

namespace shardplan::oper {

double DuplicationFrequency(double p2p_gibps, double all_reduce_gibps, int64_t local_batch) {
  return p2p_gibps / (static_cast<double>(local_batch) * all_reduce_gibps);
}

double AccessFrequency(const Partition& partition, int64_t local_batch) {
  return partition.lookups /
         (static_cast<double>(local_batch) * static_cast<double>(partition.rows()));
}

int64_t DuplicateHotPartitions(const std::vector<Partition>& partitions, double threshold,
                               int64_t local_batch, std::vector<int64_t> available,
                               Copies& copies) {
  const int devices = static_cast<int>(available.size());
  std::vector<int32_t> hottest;
  for (int32_t p = 0; p < static_cast<int32_t>(partitions.size()); ++p) {
    if (AccessFrequency(partitions[p], local_batch) > threshold) hottest.push_back(p);
  }
  std::stable_sort(hottest.begin(), hottest.end(), [&](int32_t a, int32_t b) {
    return AccessFrequency(partitions[a], local_batch) >
           AccessFrequency(partitions[b], local_batch);
  });
  int64_t duplicated = 0;
  for (int32_t p : hottest) {
    const Partition& partition = partitions[p];
    const auto lacks = [&](int d) {
      return std::find(copies.devices[p].begin(), copies.devices[p].end(), d) ==
             copies.devices[p].end();
    };
    bool fits = true;
    for (int d = 0; d < devices && fits; ++d) fits = !lacks(d) || partition.bytes <= available[d];
    if (!fits) continue;
    for (int d = 0; d < devices; ++d) {
      if (!lacks(d)) continue;
      copies.AddReplica(partition, p, d);
      available[d] -= partition.bytes;
    }
    ++duplicated;
  }
  return duplicated;
}

}  // namespace shardplan::oper
