#ifndef SHARDPLAN_PLANNER_DOMAIN_ROUTED_LAYOUT_QUERIES_H_
#define SHARDPLAN_PLANNER_DOMAIN_ROUTED_LAYOUT_QUERIES_H_

// The cost queries of a table whose row layout is routed: replicated row groups, a data-parallel
// table on some devices, explicit routes (row_layout.h; IsClassicLayout is false). Classic
// layouts keep sharding_semantics.h's per-type queries, so their costs do not change
// (tests/unit/golden). docs/cost-models.md, "Routed layouts":
//
//   a shard serves    the requesters routed to it (ServingShards), for its rows' share of the
//                     table's lookups (AccessOfRows: the curve's share of its rank range when
//                     the layout is in frequency-rank order or the table's ids are ranks,
//                     hashed evenly within rank bands; else rows / rows)
//   forward           one routed all-to-all per tier (the groups' replica count): serving
//                     replica -> requester, the requester's samples' outputs of the group:
//                     pooled B / W x c x 4 (partial sums; a whole-table replica sends nothing
//                     to its own device), sequence L x B / W x share x c x 4 (the rows found)
//   backward          the same exchanges transposed (gradients), then per replicated group a
//                     dense all-reduce of its rows x c x element bytes among its replicas,
//                     followed by the replicas' dense update (as a data-parallel table's)
//   inference         the forward exchanges only

#include <vector>

#include "planner/domain/rank_frequency.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/task.h"

namespace shardplan {

struct RoutedTableQueries {
  std::vector<ShardView> shards;  // per shard of the sharding, in order (RoutedShare set)
  std::vector<CollectiveDemand> collectives;
};

// The queries of `sharding` (of `table`, whose layout is `layout`) on `task`'s topology, batch
// and objective. Shards must be within the table and on real devices (DescribePlacement checks).
RoutedTableQueries QueriesOfRoutedLayout(const Task& task, const Table& table,
                                         const TableSharding& sharding,
                                         const TableLayout& layout);

// Whether rows of `sharding` (of `table`) are ranks of the table's curve: a frequency-rank
// layout, or a table whose client numbered its ids by rank.
bool RowsAreRanks(const Table& table, const TableSharding& sharding);

// The share of the table's lookups that rows [begin, end) of `sharding` serve, and the rank
// range whose access classes they have. Rows by rank serve their ranks' share of `curve` (the
// table's, CurveOf); within a rank band (TableSharding::rank_bands) the ids are hashed, so each
// row serves an even part of its band's share and has the band's classes; rows of a natural
// layout serve rows / rows.
struct RowRangeAccess {
  double share = 0.0;
  int64_t ranks_begin = 0;
  int64_t ranks_end = 0;
};
RowRangeAccess AccessOfRows(const Table& table, const TableSharding& sharding,
                            const RankFrequencyCurve& curve, int64_t begin, int64_t end);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_ROUTED_LAYOUT_QUERIES_H_
