#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_

// TorchRec's GreedyPerfPartitioner (planner/partitioners.py, SortBy.STORAGE) for uniform (RW,
// DP), host (TWRW) and device (TW, CW) partitioned options, and NoopPerfModel's rating.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "planner/algorithms/torchrec/sharding_option.h"
#include "planner/domain/task.h"
#include "planner/search/memory_ledger.h"

namespace shardplan::torchrec {

struct Placement {
  std::vector<std::vector<int32_t>> device_of_shard;  // [table][shard of its proposed option]
  std::vector<double> device_perf;                    // sum of perf.total of its shards
  std::vector<int64_t> device_bytes;
  double perf_rating = 0.0;  // NoopPerfModel.rate: the largest device_perf
};

// Places `proposal` (one option per table of `space`) on the task's devices, or nullopt when
// some shard fits nowhere (TorchRec raises PlannerError; the pipeline drops the proposal).
// Pinned units go first, in index order, to their device; then uniform options, shard i on
// device i. The others, largest storage sum first (stable, so ties keep table order): a TWRW
// option on the first host by summed perf that holds it (shard i on its i-th device); any other
// shard on the device with the lowest (perf, local rank, rank) that has room for it. Each adds
// its perf and bytes where it lands. A colocation group moves as one item with its shards'
// summed storage and perf.
// Deterministic: ties break by (local rank, rank), as TorchRec's heap does.
std::optional<Placement> GreedyPerfPartition(const Task& task, const SearchSpace& space,
                                             const Proposal& proposal);

// GreedyPerfPartition for many proposals of one search: each free table's items are measured
// once per option, and the buffers are reused. Not thread-safe; `task` and `space` must outlive
// it.
class Partitioner {
 public:
  Partitioner(const Task& task, const SearchSpace& space);
  // Whether GreedyPerfPartition places `proposal` with a rating below `bound`; it stops as soon
  // as some device's perf reaches the bound (perfs only grow). The placement is placement().
  bool Partition(const Proposal& proposal,
                 double bound = std::numeric_limits<double>::infinity());
  // The last successful Partition's placement; valid until the next call.
  const Placement& placement() const { return placement_; }

 private:
  // What moves in one step: one shard of a free table, or every shard of a unit that must stay
  // on one device (a colocation group or a pinned table).
  struct Item {
    int unit = 0;
    int table = -1;  // >= 0: shard `shard` of this table alone
    int shard = 0;
    int64_t bytes = 0;
    double perf = 0.0;
  };
  // An option's (or a colocation group's) items and their storage sum, the sort key.
  struct Group {
    int64_t bytes = 0;
    PartitionBy partition_by = PartitionBy::kDevice;
    std::vector<Item> items;
  };

  Item WholeUnit(int unit, const Proposal& proposal) const;
  // Whether device a's (perf, local rank, rank) is below b's.
  bool Lower(int a, int b) const {
    const double perf_a = placement_.device_perf[a];
    const double perf_b = placement_.device_perf[b];
    if (perf_a != perf_b) return perf_a < perf_b;
    if (a % local_ != b % local_) return a % local_ < b % local_;
    return a < b;
  }
  void Put(const Item& item, int device, const Proposal& proposal);
  // The device `item` went to, or -1 when none has room.
  int PutOnLowestPerfDevice(const Item& item, const Proposal& proposal);
  bool PutOnAHost(const Group& group, const Proposal& proposal);
  double MaxPerf() const;

  const Task& task_;
  const SearchSpace& space_;
  MemoryLedger ledger_;
  const int local_;                                // devices per host
  std::vector<std::vector<Group>> option_groups_;  // [table][option]; empty for units
  Placement placement_;
  std::vector<Group> units_;  // this proposal's colocation groups
  std::vector<const Group*> uniform_;  // this proposal's uniform options
  std::vector<const Group*> groups_;   // and the others
  std::vector<int> heap_;     // devices, a min-heap by Lower
  std::vector<int> set_aside_;
  bool heap_dirty_ = true;
};

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PARTITIONER_H_
