#ifndef SHARDPLAN_PLANNER_DOMAIN_PLAN_H_
#define SHARDPLAN_PLANNER_DOMAIN_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/domain/table.h"

namespace shardplan {

// A row range x column range of one table on one device.
struct Shard {
  int32_t device = 0;
  int64_t row_offset = 0;
  int64_t row_count = 0;
  int32_t column_offset = 0;
  int32_t column_count = 0;
};

// How a table's row ranges number its rows (planner/domain/row_layout.h): by id, or by access
// frequency, hottest first (rank 0), where the client keeps the rank -> id map.
enum class RowOrder { kNatural, kFrequencyRank };

// The proto enum names ("NATURAL", "FREQUENCY_RANK").
const char* RowOrderName(RowOrder order);

// Device `requester`'s lookups of the rows that shard `shard` holds go to that shard's device:
// an explicit choice among a replicated group's replicas, in place of the default (the
// requester's own replica, else one on its host, else the lowest device).
struct RowRoute {
  int32_t requester = 0;
  int32_t shard = 0;  // index into TableSharding::shards
};

// One table's shards. Shards with the same row range x column range on different devices are
// replicas of one row group (row_layout.h); which types allow that is validation's rule table.
struct TableSharding {
  std::string table;  // Table::name
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<Shard> shards;
  RowOrder row_order = RowOrder::kNatural;
  // kFrequencyRank only: boundaries (strictly increasing, within (0, rows)) that cut the ranks
  // into bands [0, b1), ..., [bk, rows). A band holds exactly its ranks, in the client's hashed
  // id order, so each of its rows serves an even part of the band's lookups (FlexShard keeps
  // each tier's rows so). Empty: every row is its own rank.
  std::vector<int64_t> rank_bands;
  std::vector<RowRoute> routes;  // overrides only; empty: every requester routed by default
  // The ids of ranks [0, n) from the task's TopKAccessProfile::top_ids, n the end of the last
  // replicated row group (AttachHotRowIds, planner/domain/hot_row_ids.h); empty otherwise.
  std::vector<int64_t> hot_row_ids;
};

// Per-device figures; total_ms = compute_ms + backward_comm_ms + forward_comm_ms.
struct DeviceCost {
  int32_t device = 0;
  int64_t memory_bytes = 0;
  int64_t memory_capacity_bytes = 0;
  int64_t dim_sum = 0;  // columns of its TABLE_WISE / COLUMN_WISE shards (the all-to-all's)
  int32_t num_shards = 0;
  double compute_ms = 0.0;
  double forward_comm_ms = 0.0;
  double backward_comm_ms = 0.0;
  double total_ms = 0.0;
  int64_t sequence_buffer_bytes = 0;  // DeviceMemory::sequence_buffer_bytes; not in memory_bytes
};

// What the search did: its counters, and the column splits it made (the proto's
// Plan.column_splits). Algorithms fill it; RunPlanning adds the planning time.
struct SearchStats {
  double planning_time_ms = 0.0;
  int64_t cost_model_calls = 0;
  int64_t cost_cache_hits = 0;
  int64_t cost_cache_misses = 0;
  int64_t candidates_evaluated = 0;
  bool anytime_result = false;
  std::vector<std::string> column_splits;  // the tables halved, in the order the search split them
};

// A sharding plan: every table of the task exactly once, in full (ValidatePlan checks this),
// with the figures that EvaluatePlan computes and where the plan came from. What a server adds
// to the plans it serves (request hash, selection, warnings) is the server's
// (server/planning_result.h).
struct Plan {
  std::vector<TableSharding> tables;
  std::vector<DeviceCost> devices;
  double cost_ms = 0.0;
  int32_t bottleneck_device = 0;
  std::string algorithm;
  // The resolved parameters, defaults included, and what the algorithm reports of its plan
  // under dotted keys, which no parameter name has ("tier.dp.rows": FlexShard's tiers,
  // planner/algorithms/flexshard/flexshard_report.h).
  std::map<std::string, std::string> parameters;
  uint64_t seed = 0;
  std::string cost_model;  // "name@version"
  std::string cost_kind = "simulated";
  SearchStats stats;
  // The task's devices per host, which placements on multi-host jobs need (device R is local
  // device R mod local_world_size); EvaluatePlan records it.
  int32_t local_world_size = 0;
};

// A table-wise plan from a device per task table (device_of_table[i] for task.tables[i]).
// Figures are left for EvaluatePlan.
struct Task;
Plan TableWisePlan(const Task& task, const std::vector<int32_t>& device_of_table);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_PLAN_H_
