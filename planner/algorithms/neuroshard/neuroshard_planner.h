#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_

#include <vector>

#include "planner/algorithms/neuroshard/beam_search.h"
#include "planner/algorithms/neuroshard/type_prepass.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

// NeuroShard's online search (MLSys'23, section 3.3; docs/neuroshard.md): beam search over
// column-wise splits around a greedy grid search over table-wise placements, every state scored
// by the full plan cost under the request's cost model, with a compute-cost cache shared across
// the search. Beyond the paper, it searches the row level too (data-parallel, row-wise and
// table-row-wise tables, where the model costs them), and its portfolio holds the greedy
// baselines' plans and those of `portfolio`'s algorithms. Anytime: on a deadline it returns the
// best plan found so far, flagged.
class NeuroShardPlanner : public Algorithm {
 public:
  // `portfolio`: algorithms whose plans the portfolio costs too (BuiltinAlgorithms gives it the
  // registry's `torchrec`); they must outlive the planner.
  explicit NeuroShardPlanner(std::vector<const Algorithm*> portfolio = {});

  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override;

 private:
  // The search over every type (start.any_movable()), then the portfolio.
  absl::StatusOr<Plan> RunEveryType(const Task& task, const PlanningContext& context,
                                    const neuroshard::BeamOptions& options,
                                    const neuroshard::TypeStart& start) const;

  AlgorithmInfo info_;
  std::vector<const Algorithm*> portfolio_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_PLANNER_H_
