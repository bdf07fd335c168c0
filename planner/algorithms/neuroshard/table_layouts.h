#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TABLE_LAYOUTS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TABLE_LAYOUTS_H_

// The ways NeuroShard lays one table out beyond the column level (ROW_WISE, TABLE_ROW_WISE,
// DATA_PARALLEL), their memory, and the full plan cost of plans made of such layouts.

#include <cstdint>
#include <vector>

#include "planner/domain/cost_model.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan::neuroshard {

// The types beyond the column level, in the order the type search tries them.
inline constexpr ShardingType kRowLevelTypes[] = {
    ShardingType::kDataParallel, ShardingType::kRowWise, ShardingType::kTableRowWise};

// Whether the search may give `table` the type: the table allows it and `model` costs it.
bool MayUse(const Table& table, const CostModel& model, ShardingType type);

// One shard of all rows and columns on `device`.
TableSharding TableWiseLayout(const Table& table, int device);
// Row blocks over every device (TorchRec's: ceil(rows / W) each, or rows in proportion to
// memory when capacities differ); blocks without rows are left out, as plans hold no empty
// shards.
TableSharding RowWiseLayout(const Table& table, const Topology& topology);
// TorchRec's even row blocks over the devices of `host`, empty blocks left out.
TableSharding TableRowWiseLayout(const Table& table, const Topology& topology, int host);
// A whole replica on every device.
TableSharding DataParallelLayout(const Table& table, const Topology& topology);
// The layout of `type` (one of kRowLevelTypes; `host` for TABLE_ROW_WISE only).
TableSharding RowLevelLayout(ShardingType type, const Table& table, const Topology& topology,
                             int host);

// Adds `sign` (+1 or -1) times the bytes of each shard of `sharding` to bytes[device].
void AddLayoutBytes(const Table& table, const TableSharding& sharding, const MemoryOptions& memory,
                    int sign, std::vector<int64_t>& bytes);

// The reference plan cost (EvaluatePlan's, bit for bit) of plans whose tables[i] is the sharding
// of task.tables[i], without EvaluatePlan's name lookups and checks: the type search costs
// thousands of plans. It counts the shards it costed, which bounds the search's work.
class LayoutCoster {
 public:
  LayoutCoster(const Task& task, const CostModel& model);
  PlacementCost Cost(const std::vector<TableSharding>& tables);
  int64_t shards_costed() const { return shards_costed_; }
  int64_t plans_costed() const { return plans_costed_; }

 private:
  const Task& task_;
  const CostModel& model_;
  PlacementQueries queries_;  // buffers reused from plan to plan
  int64_t shards_costed_ = 0;
  int64_t plans_costed_ = 0;
};

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TABLE_LAYOUTS_H_
