#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLACEMENT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLACEMENT_H_

// OPER's balanced model parallelism (section 4.2; docs/oper.md, "Placement"): every partition on
// one device, greedily. OPER places the access-bounded partitions first, hottest first, each on
// the device with the least lookup workload (Eq. 2), then the memory-bounded ones, largest
// first, each on the device with the least memory (Eq. 1); a device the partition does not fit
// is skipped (C5-C7: docs/oper.md). Its Fig. 10 baselines place every partition by one criterion:
// Memory-Greedy by memory, Access-Greedy by lookups.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/domain/access_figures.h"  // DegreeOfBalance

namespace shardplan::oper {

enum class PlacementRule { kOper, kMemoryGreedy, kAccessGreedy };

struct Placement {
  std::vector<int32_t> owner;         // per partition: its device
  std::vector<double> lookup_bytes;   // per device: Eq. 2 (bytes looked up per iteration for
                                      // every requester; L[j][j] left out: one per device)
  std::vector<int64_t> memory_bytes;  // per device: Eq. 1
};

// A partition's lookup workload on its device: every one of `num_devices` requesters looks up
// its rows (A_k each) of fetch_bytes.
double LookupBytes(const Partition& partition, int num_devices);

// Places `partitions` (of `tables`) on devices of `capacities` by `rule`. Deterministic: ties go
// to the lower device. FAILED_PRECONDITION naming the table, the ranks and the bytes of the
// first partition that fits no device.
absl::StatusOr<Placement> PlacePartitions(const std::vector<PartitionTable>& tables,
                                          const std::vector<Partition>& partitions,
                                          const std::vector<int64_t>& capacities,
                                          PlacementRule rule);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_PLACEMENT_H_
