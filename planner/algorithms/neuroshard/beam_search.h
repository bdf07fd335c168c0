#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BEAM_SEARCH_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BEAM_SEARCH_H_

// NeuroShard's outer loop: beam search over column-wise splits, each state scored by the greedy
// grid search.

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "planner/algorithms/neuroshard/greedy_grid.h"
#include "planner/algorithms/neuroshard/split_state.h"
#include "planner/domain/cost_model.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::neuroshard {

struct BeamOptions {
  int beam_width = 3;       // K
  int candidates = 10;      // N, per criterion (size, single-piece predicted cost)
  int max_steps = 10;       // L
  bool beam_search = true;  // false: the unsplit state only
  int threads = 1;          // grid searches of one step's candidates run in parallel
  GridOptions grid;
};

struct SearchResult {
  bool feasible = false;
  bool stopped = false;  // the stop signal cut the search short
  SplitState state;      // of the best plan (the unsplit state when none is feasible)
  std::vector<int32_t> device_of_piece;
  double cost_ms = std::numeric_limits<double>::infinity();
  absl::Status unsplit_failure;      // why the unsplit state has no placement, if it has none
  int64_t candidates_evaluated = 0;  // states whose grid search completed
  int64_t greedy_runs = 0;
  int64_t plan_evaluations = 0;
};

// The split candidates of `state`: every piece when N exceeds the piece count, else the union of
// the N largest pieces by memory and the N with the highest predicted single-piece compute cost
// (ties to the lower index), ascending; then, as in the reference, only those whose half is a
// positive multiple of 4 (and whose table the problem lets the search split).
std::vector<int> SplitCandidates(const SearchProblem& problem, const SplitState& state, int n,
                                 const ShardCostCache& costs);

// The reference's loop: beam = [unsplit]; for up to L steps, every beam state x every candidate
// split is grid-searched, the K cheapest by (cost, steps) form the next beam, and the best state
// ever evaluated (strictly lower cost; the earliest on ties) is returned. Candidates of one step
// are independent, so with threads > 1 they run in parallel and are merged in candidate order:
// the result is identical to one thread. On stop, the best found so far (stopped = true).
SearchResult BeamSearch(const SearchProblem& problem, const BeamOptions& options,
                        const ShardCostCache& costs, const StopSignal& stop,
                        const std::function<void(const PlanningProgress&)>& on_progress);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BEAM_SEARCH_H_
