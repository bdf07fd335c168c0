#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_PREPASS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_PREPASS_H_

// Which tables leave the column level before NeuroShard's column-level search runs: those too
// large for any device (they must) and those whose replica or row shards the cost model
// predicts cheaper than their share of a table-wise plan (docs/neuroshard.md, "Every sharding
// type").

#include <optional>
#include <vector>

#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan::neuroshard {

struct TypeStart {
  // Per task table: whether the type search may give it a row-level or data-parallel layout (it
  // allows one the model costs, is neither pinned nor colocated, and there are 2+ devices).
  std::vector<bool> movable;
  // Per task table: its layout outside the column level, or none (the column-level search
  // places it). `forced` ones fit no device whole, or do not allow TABLE_WISE (the column-level
  // search starts from whole tables).
  std::vector<std::optional<TableSharding>> layout;
  std::vector<bool> forced;
  // Per task table: the estimated drop of the busiest device's time (ms) when the table takes
  // its best layout beyond the column level; the type refinement tries the larger drops first.
  std::vector<double> gain;

  bool any_movable() const;
  bool any_chosen() const;  // a layout that was not forced
};

// The estimate behind each choice, per table, from a handful of cost queries on lone shards:
//   column     = compute of the whole table on one device + the all-to-all time its dims add
//                (summed over devices, from every device at the mean dim sum)
//   balanced   = sum of `column` over all tables / devices (a perfectly balanced device)
//   alternative= its layout's costliest device: compute of its shard + its collectives' time
//   gain       = max(balanced, column) - (balanced - column / devices + alternative)
// A table too large for every device takes its cheapest row-level layout that fits; any other
// takes its best layout when the gain is positive, largest gain first, while every device keeps
// room for its layouts and the tables left hold in the memory left. TABLE_ROW_WISE goes to the
// host with the least such load so far.
TypeStart ChooseTypeStart(const Task& task, const CostModel& model);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_TYPE_PREPASS_H_
