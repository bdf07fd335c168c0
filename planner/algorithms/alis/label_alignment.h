#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_LABEL_ALIGNMENT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_LABEL_ALIGNMENT_H_

// Shard labels of a plan made from scratch (a random start) are an arbitrary permutation of
// those of the plan it replaces: the same partition under other names would move almost every
// row and make a per-row vote across plans meaningless. The paper does not address it
// (papers/notes/alis.md section 2.2); ours: rename the new plan's shards to maximise the rows
// that stay, greedily (the largest overlap of an unnamed shard with an untaken one first, ties
// to the lower shards). Renaming changes no request's fan-out or latency.

#include "planner/domain/row_shard_map.h"

namespace shardplan::alis {

// Renames `plan`'s shards after `reference` (same tables and shards); returns the rows that
// stay on their shard afterwards.
int64_t AlignShardLabels(const RowShardMap& reference, RowShardMap& plan);

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_LABEL_ALIGNMENT_H_
