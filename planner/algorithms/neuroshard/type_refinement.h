#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_REFINEMENT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_REFINEMENT_H_

// The last step of NeuroShard's search over every sharding type: one table at a time tries its
// other types, each scored by the whole plan's cost, and keeps the cheapest when the plan's
// cost drops (docs/neuroshard.md, "Every sharding type").

#include <cstdint>
#include <vector>

#include "planner/algorithms/neuroshard/type_prepass.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::neuroshard {

// The most shards the refinement costs (summed over the plans it costs): a plan of 1000 tables
// on 128 devices has 1,000 to 14,000 (a hundred replicated tables), so 70 to 1,000 moves.
// Bounds its time on big tasks; Criteo's 29 tables on 32 devices (600 shards, 200 moves) finish
// both passes far below it.
inline constexpr int64_t kRefineShardBudget = 1'000'000;

struct RefineStats {
  int64_t moves_tried = 0;
  int64_t moves_kept = 0;
  int64_t plans_costed = 0;
  bool stopped = false;         // `stop` fired
  bool budget_reached = false;  // kRefineShardBudget was spent
};

// Improves `tables` (tables[i] is task.tables[i]'s sharding; a plan within memory) in place,
// `cost` being its PlacementCost under `model`. Movable tables (start.movable) are visited by
// start.gain, largest first (ties to the lower index). Each tries every other type it may take
// (MayUse): the row-level layouts (TABLE_ROW_WISE on the host whose devices' totals sum lowest)
// and, from a row-level layout, TABLE_WISE on the device with the lowest total that has room.
// A move is better when the plan's cost (the busiest device) does not rise and cost + the mean
// of the devices' totals drops by more than float noise (1e-9 relative); the best move, if
// better than the plan, is kept. Up to two passes, fewer when a pass keeps nothing, the budget is
// spent or `stop` fires. Deterministic.
RefineStats RefineTypes(const Task& task, const CostModel& model, const TypeStart& start,
                        const StopSignal& stop, std::vector<TableSharding>& tables,
                        PlacementCost& cost);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_REFINEMENT_H_
