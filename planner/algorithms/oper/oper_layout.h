#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_LAYOUT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_LAYOUT_H_

// OPER's partitions as row layouts (docs/architecture.md, "Row layout"; docs/oper.md): each
// table ROW_WISE in frequency-rank order (in natural order when it has no access profile), one row
// group per partition (its rank range, every column) with a shard on each device holding a copy
// (ascending devices), and a RowRoute for every requester whose fetch path (Copies::path) is not
// the layout's default route.

#include <vector>

#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/domain/plan.h"
#include "planner/domain/topology.h"

namespace shardplan::oper {

// One sharding per table of `tables`, in their order. `partitions` tile every table's ranks
// (PartitionTables' output) and `copies` says where each lives and who fetches it from where.
std::vector<TableSharding> OperShardings(const std::vector<PartitionTable>& tables,
                                         const std::vector<Partition>& partitions,
                                         const Copies& copies, const Topology& topology);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_LAYOUT_H_
