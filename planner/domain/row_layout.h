#ifndef SHARDPLAN_PLANNER_DOMAIN_ROW_LAYOUT_H_
#define SHARDPLAN_PLANNER_DOMAIN_ROW_LAYOUT_H_

// A table's row layout: the row groups its shards form, where each group's replicas live and
// which replica serves each requesting device (docs/architecture.md, "Row layout").
//
//   row group   a row range x column range of the table, in the table's row order (natural ids,
//               or frequency rank with the hottest row at 0)
//   replicas    the devices holding the group: the shards with exactly that range
//   route       which replica a requesting device's lookups of the group go to: an explicit
//               RowRoute, else the requester's own replica, else the lowest device on its host,
//               else the lowest device
//
// Today's five sharding types are layouts of one shape each (TW: one group on one device; CW:
// column groups; RW: row groups, which may be replicated; TWRW: row groups on one host; DP: one
// whole-table group on its replicas); validation's rule table (layout_rules.h) says which.
// A layout is compact: ranges, never per-row lists.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"

namespace shardplan {

struct RowGroup {
  int64_t row_offset = 0;
  int64_t row_count = 0;
  int32_t column_offset = 0;
  int32_t column_count = 0;
  std::vector<int32_t> shards;   // the shards holding it (TableSharding::shards indices), in order
  std::vector<int32_t> devices;  // their devices, devices[i] holding shards[i]

  int32_t replicas() const { return static_cast<int32_t>(shards.size()); }
};

struct TableLayout {
  const Table* table = nullptr;
  ShardingType sharding_type = ShardingType::kTableWise;
  RowOrder row_order = RowOrder::kNatural;
  std::vector<RowGroup> groups;         // in order of their first shard
  std::vector<int32_t> group_of_shard;  // per shard: its group
  std::vector<RowRoute> routes;         // the sharding's explicit routes

  // Whether some group has more than one replica.
  bool Replicated() const;
};

// The layout of `sharding` (of `table`): shards with the same row and column range form one
// group. Shapes are not checked here (ValidatePlan does).
TableLayout LayoutOf(const Table& table, const TableSharding& sharding);

// Per group, per device of `topology`: the shard (TableSharding::shards index) that serves that
// device's lookups of the group. Routes naming a shard of another group, or out of range, are
// ignored here (ValidatePlan refuses them).
std::vector<std::vector<int32_t>> ServingShards(const TableLayout& layout,
                                                const Topology& topology);

// Whether the layout is one that today's five sharding types described before row layouts:
// natural order, no explicit route, no replicated group but a DATA_PARALLEL table's, and a
// DATA_PARALLEL table on every device. Every cost model costs these, with per-type semantics
// (sharding_semantics.h); the others are routed layouts (routed_layout_queries.h), which only
// models that cost row layouts cost (docs/cost-models.md, "Routed layouts").
bool IsClassicLayout(const TableLayout& layout, int num_devices);

// The task table of each plan table, in plan order. INVALID_ARGUMENT naming the field for a
// table the task does not have or a shard on a device that does not exist.
absl::StatusOr<std::vector<const Table*>> TablesOfPlan(const Task& task, const Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_ROW_LAYOUT_H_
