#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_PLAN_AGGREGATION_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_PLAN_AGGREGATION_H_

// ALIS's aggregate-based sharding (Algorithm 1, papers/notes/alis.md section 2.2; its body is
// lost): every row goes where a soft vote of the new candidate and the recent plans puts it.
//
//   V[e][j] = (1 - beta) [P_cand(e) = j] + beta sum_i w_i [P_i(e) = j],
//   w_i = (1 / C_i) x age_decay^(age_i - 1) / (the same summed over i),
//   P_new(e) = argmax_j V[e][j], ties to the candidate's shard, then the lower shard.
//
// The paper fixes the ingredients (the inverse cost 1/C_i, a temporal decay, beta weighing
// history against the current result); the formula joining them is ours (docs/alis.md). The
// history holds the recent *candidates* (each update's own result before voting), not the
// deployed plans: voting against deployed plans feeds each output back as the next input, and
// with beta > 1/2 a unanimous history outvotes every candidate forever (with beta < 1/2 the
// candidate always wins), so the vote would either freeze the plan or do nothing. C_i is the
// measured cost of the plan deployed from candidate i; a candidate not yet measured weighs as
// the mean of those measured (1 when none is).

#include <cstdint>
#include <limits>
#include <span>

#include "planner/domain/row_shard_map.h"

namespace shardplan::alis {

struct HistoryPlan {
  RowShardMap plan;
  double cost = std::numeric_limits<double>::quiet_NaN();  // NaN: not measured yet
  int64_t update = 0;                                      // the update that made it
};

struct AggregationOptions {
  double beta = 0.8;
  double age_decay = 0.5;
};

// The vote over `candidate` and `history` (plans of the same tables and shards) at update `now`.
// An empty history returns the candidate. Rows a plan has not placed cast no vote from it.
RowShardMap AggregatePlans(const RowShardMap& candidate, std::span<const HistoryPlan> history,
                           int64_t now, const AggregationOptions& options);

// The normalised vote weights w_i of `history` at update `now` (exposed for tests and reports).
std::vector<double> HistoryVoteWeights(std::span<const HistoryPlan> history, int64_t now,
                                       double age_decay);

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_PLAN_AGGREGATION_H_
