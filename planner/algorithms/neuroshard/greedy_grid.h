#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_GREEDY_GRID_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_GREEDY_GRID_H_

// NeuroShard's inner loop: greedy table-wise placement of the augmented list under a max device
// dim cap, grid-searched over the cap and scored by the full plan cost.

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/algorithms/neuroshard/split_state.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"
#include "planner/search/placement_units.h"
#include "planner/search/shard_cost_cache.h"

namespace shardplan::neuroshard {

inline constexpr char kAlgorithmName[] = "neuroshard";

// The facts of one task the search consults throughout.
struct SearchProblem {
  const Task* task = nullptr;
  CostContext cost_context;
  std::vector<PlacementUnit> units;  // TableWiseUnits: colocation groups move together
  std::vector<int> unit_of_table;
  // Tables the search may halve: they allow COLUMN_WISE and are neither pinned nor colocated
  // (their pieces could then go to different devices).
  std::vector<bool> splittable;
  double mean_dim = 0.0;  // sum of dims / devices; invariant under splits
};

// FAILED_PRECONDITION naming a table that allows neither TABLE_WISE nor COLUMN_WISE (one that
// allows COLUMN_WISE only is searched whole and planned as one COLUMN_WISE shard when unsplit);
// `allow_splits` false makes no table splittable.
absl::StatusOr<SearchProblem> MakeSearchProblem(const Task& task, bool allow_splits);

// The memory of pieces[i] (all rows, its columns).
int64_t PieceBytes(const SearchProblem& problem, const Piece& piece);

// What the greedy places in one move: a piece, or a whole colocated or pinned unit.
struct GreedyItem {
  std::vector<int> pieces;  // ascending augmented indices
  int unit = 0;             // problem.units index
  int64_t bytes = 0;
  int64_t dims = 0;
  double cost = 0.0;  // predicted compute cost of the item alone
};

// The items of `state` in the order the greedy places them (below); it does not depend on the
// scale, so the grid computes it once per state.
std::vector<GreedyItem> GreedyOrder(const SearchProblem& problem, const SplitState& state,
                                    const ShardCostCache& costs);

// _greedy(scale): items (a piece, or the whole of a colocated or pinned unit) by single-item
// predicted compute cost descending, ties to the higher augmented index (the reference's stable
// ascending sort popped from the back); pinned items first, on their devices. Each item goes to
// the device with the lowest predicted compute cost of its current shard set, among devices with
// room in memory and dim_sum + dim <= scale * mean_dim; ties to the smaller memory used, then
// the lower index. Returns device_of_piece, or FAILED_PRECONDITION naming the item that fit
// nowhere (the memory message of the baselines when no device has the memory).
// With `unplaced_bytes`, an item that no device has the memory for is skipped and its bytes
// added there, and the greedy goes on, so that infeasible states can be ranked by how much did
// not fit; the error is still the first such item's.
absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            double scale, const ShardCostCache& costs,
                                            int64_t* unplaced_bytes = nullptr);
// The same with `items` from GreedyOrder(problem, state, costs).
absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            const std::vector<GreedyItem>& items, double scale,
                                            const ShardCostCache& costs,
                                            int64_t* unplaced_bytes = nullptr);

// Greedy at every scale of `scales` at once, with the result of each, in order. Runs that make
// the same choices share them: the scales travel together until the dim cap first sends them to
// different devices, where the run forks. Identical to one Greedy per scale (without
// unplaced_bytes), at the cost of the distinct choices only: neighbouring scales of the grid
// part late in the run, when the devices' dim sums near the cap.
//
// From `resume`, a checkpoint of these scales' greedy on a state whose first resume items are
// exactly `items`' first ones (CommonPrefix): the choices before them are the same, so they are
// not made again.
struct GreedyCheckpoint;
std::vector<absl::StatusOr<std::vector<int32_t>>> GreedyAtScales(
    const SearchProblem& problem, const SplitState& state, const std::vector<GreedyItem>& items,
    const std::vector<double>& scales, const ShardCostCache& costs,
    const GreedyCheckpoint* resume = nullptr);

struct GridOptions {
  int grid_steps = 11;      // scales 1.0, ..., 1.5 of mean_dim
  bool grid_search = true;  // false: one greedy run without the dim cap
};

// The grid's greedy on `state` (GridOptions' scales, which must be capped) paused before each
// item index of `stops` (ascending, distinct): one checkpoint per stop, for the states that
// share `items`' first `stop` items. Empty for an uncapped grid.
std::vector<std::shared_ptr<const GreedyCheckpoint>> GreedyCheckpoints(
    const SearchProblem& problem, const SplitState& state, const std::vector<GreedyItem>& items,
    const GridOptions& options, const ShardCostCache& costs,
    const std::vector<size_t>& stops);

// How many first items two item orders share (the same pieces, unit, size, dims and cost).
size_t CommonPrefix(const std::vector<GreedyItem>& a, const std::vector<GreedyItem>& b);

struct GridResult {
  bool feasible = false;
  bool stopped = false;  // the stop signal fired before every scale ran
  std::vector<int32_t> device_of_piece;
  double cost_ms = std::numeric_limits<double>::infinity();
  absl::Status failure;  // when infeasible: the uncapped greedy's error
  // When infeasible: the memory the uncapped greedy could not place anywhere. The beam ranks
  // infeasible states by it (a deviation: the reference sees them all as infinitely costly).
  int64_t unplaced_bytes = 0;
  int64_t greedy_runs = 0;
  int64_t plan_evaluations = 0;  // full plan-cost evaluations (comm model calls)
};

// _table_wise_shard: Greedy at every scale (GreedyAtScales), each feasible placement scored by
// CostOfPlacement, the lowest cost kept (the first scale on ties). Deviation: when no scale is
// feasible, one more greedy without the dim cap, so that the dim cap alone never makes a task
// infeasible. Checks `stop` before the grid's greedy and before that extra one.
GridResult GridSearch(const SearchProblem& problem, const SplitState& state,
                      const GridOptions& options, const ShardCostCache& costs,
                      const StopSignal& stop);
// The same with `items` = GreedyOrder(problem, state, costs) given, and the grid's greedy
// resumed from `resume` (GreedyAtScales) when not null.
GridResult GridSearch(const SearchProblem& problem, const SplitState& state,
                      const std::vector<GreedyItem>& items, const GridOptions& options,
                      const ShardCostCache& costs, const StopSignal& stop,
                      const GreedyCheckpoint* resume);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_GREEDY_GRID_H_
