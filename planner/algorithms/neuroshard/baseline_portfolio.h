#ifndef SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BASELINE_PORTFOLIO_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BASELINE_PORTFOLIO_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::neuroshard {

// The largest task (tables x devices) whose portfolio runs the other algorithms: TorchRec's
// proposers and partitioner grow with tables x devices x options, and at 1000 tables on 128
// devices under a column-level model the torchrec algorithm alone takes seconds, several times
// NeuroShard's whole search. Up to here (128 tables on 128 devices, or Criteo's 26 on 32 with
// room to spare) it takes milliseconds (docs/neuroshard.md, "Baseline portfolio").
inline constexpr int64_t kOtherAlgorithmsUpTo = 16384;

// The search's plan, or the plan of one of the four weighted greedy baselines when `costs`
// predicts it strictly cheaper (by more than float noise). NeuroShard's greedy grid places
// tables in its own order under per-cap dim limits, so on some tasks it never reaches a
// placement a one-pass heuristic finds; costing the heuristics' plans takes microseconds next
// to the search and means the answer is never predicted worse than theirs
// (docs/neuroshard.md, "Baseline portfolio"). Baselines that fail (memory, pinned devices)
// are skipped; on `stop` the best so far is returned and `*stopped` (when given) set. Returns
// the chosen plan's shards (tables[]) as Algorithm::Run does.
//
// `others` are further algorithms whose plans join the portfolio (the `torchrec` algorithm,
// given to NeuroShardPlanner by BuiltinAlgorithms: algorithms never include each other), on
// tasks of at most kOtherAlgorithmsUpTo tables x devices. Each
// runs with its default parameters and `context`'s cost model, seed and stop signal (required
// when `others` is not empty); a plan that fails, fails ValidatePlan or has a type `costs`
// cannot cost is skipped.
absl::StatusOr<Plan> CheapestOfSearchAndBaselines(const Task& task, const CostModel& costs,
                                                  const StopSignal& stop, Plan search_plan,
                                                  bool* stopped = nullptr,
                                                  const std::vector<const Algorithm*>& others = {},
                                                  const PlanningContext* context = nullptr);

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_NEUROSHARD_BASELINE_PORTFOLIO_H_
