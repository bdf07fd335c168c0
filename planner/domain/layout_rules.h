#ifndef SHARDPLAN_PLANNER_DOMAIN_LAYOUT_RULES_H_
#define SHARDPLAN_PLANNER_DOMAIN_LAYOUT_RULES_H_

// What row layouts (row_layout.h) each sharding type admits: one row of rules per type, read by
// ValidatePlan. Every error names the plan table, the shard (or the field) and the rule.
//
//   type            groups span     groups tile   replicas  one host  row order    shards
//   TABLE_WISE      all rows, cols  -             no        no        natural      1
//   COLUMN_WISE     all rows        the columns   no        no        natural      any
//   ROW_WISE        all columns     the rows      yes       no        either       any
//   TABLE_ROW_WISE  all columns     the rows      no        yes       either       any
//   DATA_PARALLEL   all rows, cols  -             yes       no        natural      any
//
// Replicas are distinct devices holding the same group; routes choose among them, so a route
// is allowed only to a group with more than one replica.

#include <cstddef>

#include "absl/status/status.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan {

struct LayoutRules {
  ShardingType type = ShardingType::kTableWise;
  bool whole_rows = false;          // every group spans all the table's rows
  bool whole_columns = false;       // every group spans all its columns
  bool single_shard = false;        // exactly one shard
  bool tiles_rows = false;          // groups tile [0, rows) without gap or overlap
  bool tiles_columns = false;       // groups tile [0, dim)
  bool replicas = false;            // a group may sit on several (distinct) devices
  bool one_host = false;            // every shard on the host of shard 0
  bool frequency_order = false;     // row_order FREQUENCY_RANK allowed (row-split types)
};

// The rules of `type`; null for a value outside the enum.
const LayoutRules* RulesOf(ShardingType type);

// Plan table `k` (`sharding`, of `table`) against its type's rules and the task's topology:
// shards within the table and on real devices, shaped and tiling as the rules say, replicas on
// distinct devices, routes naming a real requester and a replica of a replicated group, at most
// once per requester and group. INVALID_ARGUMENT naming the field, the table and the rule.
// Allowed types, pins and memory are ValidatePlan's.
absl::Status CheckLayoutRules(const TableSharding& sharding, const Table& table,
                              const Topology& topology, size_t k);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_LAYOUT_RULES_H_
