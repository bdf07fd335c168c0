#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ITERATIVE_PARTITION_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ITERATIVE_PARTITION_H_

// ALIS's IterativePartition(D_local, P_init) (papers/notes/alis.md section 2.3; the paper names
// k-means or graph partitioning and gives neither): ours is label propagation on the window's
// co-occurrence hypergraph with a balance cap.
//
// Each pass visits the window's rows in a seeded random order; a row's affinity to shard s is
// the number of its co-requested lookups on s, summed over the requests that hold it (the
// clique-expanded co-occurrence graph's edge weights, computed from the hyperedges in
// O(request size x shards) instead of its square). The row moves to its best shard when that
// beats its own and the shard stays within the cap; moves take effect at once (asynchronous
// propagation converges in fewer passes). A pass visits only the rows whose neighbourhood changed
// since their last visit (a neighbour moved; every row in the first pass) or that the cap kept
// from a better shard: the others have the
// same affinities and would stay, so a warm start from the previous plan costs about one pass
// plus the rows it disturbs (ours). Passes stop when fewer than min_moved_share of the rows
// moved, or after max_iterations. Then any shard above the cap sheds its least-requested
// rows to the least-loaded shards, so the cap always holds at the end.
//
// The cap (ours; the paper has none): each shard holds at most (1 + imbalance) x (the window's
// load) / shards + (the largest row's load) of the window's rows, a row's load being 1 (rows) or
// its bytes (bytes). Rows outside the window keep their shards and do not count.

#include <cstdint>
#include <span>
#include <vector>

#include "planner/domain/row_shard_map.h"
#include "planner/traffic/cooccurrence.h"

namespace shardplan::alis {

struct PartitionOptions {
  int shards = 1;
  int max_iterations = 10;
  double min_moved_share = 0.001;
  double imbalance = 0.05;
  // Extra slack while rows propagate (ours): a hard cap during the passes blocks a hot row from
  // its best shard as soon as that shard fills, so the passes run under imbalance +
  // propagation_slack and the repair then evicts the least-requested rows down to the cap.
  double propagation_slack = 0.0;
  uint64_t seed = 0;
};

struct PartitionResult {
  std::vector<ShardId> shard_of;  // per local id
  int iterations = 0;
  int64_t moves = 0;         // by propagation, all passes
  int64_t repair_moves = 0;  // by the cap's repair
};

// The cap the partition keeps: (1 + imbalance) x sum(loads) / shards + max(loads).
int64_t BalanceCap(std::span<const int64_t> loads, int shards, double imbalance);

// `initial` and `loads` have one entry per local id of `window`; every initial shard is a real
// shard.
PartitionResult IterativePartition(const CooccurrenceStats& window, std::vector<ShardId> initial,
                                   std::span<const int64_t> loads, const PartitionOptions& options);

// Moves rows out of shards above `cap` (their least-requested rows first, ties by local id) to
// the least-loaded shard, until every shard is within it; returns the rows moved.
int64_t RepairBalance(const CooccurrenceStats& window, std::span<const int64_t> loads, int shards,
                      int64_t cap, std::vector<ShardId>& shard_of);

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ITERATIVE_PARTITION_H_
