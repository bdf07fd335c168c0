#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_SPLIT_STATE_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_SPLIT_STATE_H_

// NeuroShard's augmented table list: the task's tables after column-wise splits.

#include <cstdint>
#include <vector>

#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan::neuroshard {

// One entry of the augmented list: columns [column_offset, column_offset + columns) of a task
// table, all rows.
struct Piece {
  int table = 0;  // task.tables index
  int32_t columns = 0;
  int32_t column_offset = 0;
};

// The reference's split rule: a piece halves to columns / 2, which must be a positive multiple
// of 4 (so 8 -> 4 splits, 4 does not).
bool HalfIsSplittable(int32_t columns);

// The augmented list and the splits that produced it. Pieces [0, num tables) are the task's
// tables in order; each split halves pieces[index] in place and appends the other half, so
// repeated splits give uneven widths (128 -> 64 + 32 + 32), as in the reference.
class SplitState {
 public:
  SplitState() = default;
  explicit SplitState(const Task& task);

  const std::vector<Piece>& pieces() const { return pieces_; }
  // Augmented indices halved, in order (the reference's sharding_steps).
  const std::vector<int>& steps() const { return steps_; }

  // Halves pieces[index] (the caller checks HalfIsSplittable and the table's constraints).
  void Split(int index);

 private:
  std::vector<Piece> pieces_;
  std::vector<int> steps_;
};

// The plan that puts pieces[i] on device_of_piece[i]: TABLE_WISE for an unsplit table (one
// COLUMN_WISE shard if the table forbids TABLE_WISE),
// COLUMN_WISE with one shard per piece (ascending column offsets) otherwise, and
// column_splits naming the table of every step in order. Figures are left for EvaluatePlan.
Plan PlanOfState(const Task& task, const SplitState& state,
                 const std::vector<int32_t>& device_of_piece);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_SPLIT_STATE_H_
