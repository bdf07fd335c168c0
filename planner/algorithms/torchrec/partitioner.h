#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_

// TorchRec's GreedyPerfPartitioner (planner/partitioners.py, SortBy.STORAGE) for device-
// partitioned options (TW, CW), and NoopPerfModel's rating.

#include <cstdint>
#include <optional>
#include <vector>

#include "planner/algorithms/torchrec/sharding_option.h"
#include "planner/domain/task.h"

namespace shardplan::torchrec {

struct Placement {
  std::vector<std::vector<int32_t>> device_of_shard;  // [table][shard of its proposed option]
  std::vector<double> device_perf;                    // sum of perf.total of its shards
  std::vector<int64_t> device_bytes;
  double perf_rating = 0.0;  // NoopPerfModel.rate: the largest device_perf
};

// Places `proposal` (one option per table of `space`) on the task's devices, or nullopt when
// some shard fits nowhere (TorchRec raises PlannerError; the pipeline drops the proposal).
// Pinned units go first, in index order, to their device. The others, largest storage sum
// first (stable, so ties keep table order), put each shard on the device with the lowest
// (perf, index) that has room for it, and add its perf and bytes there. A colocation group
// moves as one item with its shards' summed storage and perf.
// Deterministic: a scan, not a heap, gives the same order (devices are few).
std::optional<Placement> GreedyPerfPartition(const Task& task, const SearchSpace& space,
                                             const Proposal& proposal);

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_
