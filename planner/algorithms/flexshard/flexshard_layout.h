#ifndef SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_LAYOUT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_LAYOUT_H_

// One table's FlexShard tiers as a row layout (docs/flexshard.md, "The planner"): ROW_WISE in
// frequency-rank order (rank 0 = the hottest row), every shard all the table's columns.
//
//   DP    ranks [0, dp_end): one row group replicated on every device;
//   Flex  ranks [dp_end, flex_end): W contiguous slices (TorchRec's even row blocks), slice w
//         replicated on local rank w of every host (devices h * W + w); the default route (own
//         replica, else the lowest one on the requester's host) serves every device from its
//         own host, so the layout needs no explicit route;
//   RW    ranks [flex_end, rows): one block per device as TorchRec's ROW_WISE (row_blocks.h).
//
// The tiers are the layout's rank bands ({dp_end, flex_end}): each holds exactly its ranks, its
// ids in hashed order within it, so each Flex slice and RW block serves an even part of its
// tier's lookups, as FlexShard's row-wise splits of hashed ids do.
//
// Empty groups and blocks are left out. A table with no DP or Flex rows is TorchRec's ROW_WISE
// exactly, in NATURAL order: rank order would buy it nothing, and its natural (hashed) ids spread
// the lookups evenly over the blocks, as the paper's RW tier assumes (contiguous rank blocks
// would give the first the hottest rows).

#include <cstdint>

#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan::flexshard {

enum class TierKind { kDataParallel, kFlex, kRowWise };

// "DP", "Flex", "RW", for messages.
const char* TierKindName(TierKind kind);

struct TierBounds {
  int64_t dp_end = 0;    // DP: ranks [0, dp_end)
  int64_t flex_end = 0;  // Flex: [dp_end, flex_end); RW: [flex_end, rows)

  // The tier of the rank range that starts at `row_offset`.
  TierKind TierOf(int64_t row_offset) const {
    return row_offset < dp_end     ? TierKind::kDataParallel
           : row_offset < flex_end ? TierKind::kFlex
                                   : TierKind::kRowWise;
  }
};

// The sharding of `table` on `topology` (every host full: TierInputsOf checks it) for `bounds`
// within [0, table.rows], shards in order DP, Flex (slice by slice, host by host), RW.
TableSharding FlexShardSharding(const Table& table, const Topology& topology,
                                const TierBounds& bounds);

}  // namespace shardplan::flexshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_LAYOUT_H_
