#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ALIS_REPLAN_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ALIS_REPLAN_H_

// ALIS (Kong et al., Sci. Rep. 2025; papers/notes/alis.md; docs/alis.md) and what it is compared
// with, as one pure function: the previous row -> shard map, the method's state and a window's
// co-occurrence statistics in; the new map, the new state and the delta out. The same inputs give
// the same outputs (every draw is seeded by (seed, update, row)), so a server can keep the state
// as data and re-plan a deployment, and a test can replay it.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/alis/migration_budget.h"
#include "planner/algorithms/alis/plan_aggregation.h"
#include "planner/algorithms/alis/shard_weights.h"
#include "planner/domain/row_shard_map.h"
#include "planner/traffic/cooccurrence.h"

namespace shardplan::alis {

enum class Method {
  kAlis,      // light incremental sharding + aggregation (the paper's ALIS)
  kBase,      // light incremental sharding only (ALIS_base)
  kFull,      // full re-shard from a random start + aggregation (ALIS_full)
  kVanilla,   // re-shard the recent share from a random start (ALIS_vanilla, "direct sharding")
  kStatic,    // keep the previous plan
  kPeriodic,  // a full re-shard every `period` updates, the previous plan between
  kGreedy,    // greedy neighbour weights (the paper's Fig. 3)
};
// "alis", "base", "full", "vanilla", "static", "periodic", "greedy".
const char* MethodName(Method method);
absl::StatusOr<Method> ParseMethod(const std::string& name);

// Every default and which are the paper's: docs/alis.md, "Parameters".
struct Params {
  Method method = Method::kAlis;
  double alpha = 0.5;              // paper: the recent share of the window that is partitioned
  double beta = 0.8;               // paper: the history's weight in the vote
  float weight_increment = 1.0f;   // paper: dW (a constant) ...
  bool increment_by_requests = false;  // ... or (ours) dW x the row's requests in the share
  double weight_decay = 0.5;       // ours: W's decay per update (1 = the paper's literal rule)
  int history_depth = 4;           // ours: n, plans in the vote
  double history_age_decay = 0.5;  // ours: the vote's temporal decay per update of age
  int max_iterations = 10;         // ours: propagation passes of an incremental update
  int full_max_iterations = 20;    // ours: passes of a re-shard from a random start
  double min_moved_share = 0.001;  // ours: passes stop below this share of rows moved
  double imbalance = 0.05;         // ours: the balance cap's slack
  double propagation_slack = 0.5;  // ours: extra slack while propagating
  bool balance_bytes = false;      // ours: balance bytes instead of rows
  int period = 2;                  // periodic: updates between full re-shards
  MigrationBudget budget;          // issue 30: what one update may move
  uint64_t seed = 0;
};

// INVALID_ARGUMENT naming the parameter and its range.
absl::Status ValidateParams(const Params& params);

// What a method carries from one update to the next.
struct State {
  int64_t updates = 0;               // updates made so far
  ShardWeights weights;              // ALIS's W (alis, base) or greedy's neighbour weights
  std::vector<HistoryPlan> history;  // recent candidates with measured costs (alis, full)
};

// Records the measured cost (e.g. mean latency on the window after deployment) of the plan the
// last update deployed, which the next aggregation weighs by 1 / cost.
void RecordMeasuredCost(State& state, double cost);

struct UpdateStats {
  int64_t window_rows = 0;      // distinct rows partitioned (the recent share's, or all)
  int64_t window_requests = 0;  // kept requests partitioned
  int iterations = 0;
  int64_t propagation_moves = 0;
  int64_t repair_moves = 0;
  int64_t new_rows_placed = 0;  // Algorithm 3: rows the previous plan had not placed
  BudgetOutcome budget;
  int64_t weight_rows = 0;  // rows with weights after the update
  int64_t state_bytes = 0;  // weights and history plans
};

struct Update {
  RowShardMap plan;
  State state;
  RowShardMapDelta delta;  // previous -> plan, moves not listed
  UpdateStats stats;
};

// One update. `window` is the window's statistics (every row a row of `previous`); `state` is
// taken by value (move it in: W and the history are large).
absl::StatusOr<Update> Replan(const RowShardMap& previous, State state,
                              const CooccurrenceStats& window, const Params& params);

// A plan from scratch: every row on a seeded random shard, the window's rows partitioned from
// there (full_max_iterations passes). The bootstrap of every co-occurrence method, and the
// periodic baseline's re-shard (then aligned to the previous plan's labels).
RowShardMap FullReshard(const RowShardMap& space, const CooccurrenceStats& window,
                        const Params& params, int64_t update, UpdateStats* stats = nullptr);

// The cost-oblivious baselines: each table's rows in `shards` contiguous even blocks (range, as
// TorchRec's ROW_WISE), or row (t, r) on SplitMix64(seed ^ key) mod shards (hash).
RowShardMap RangePlan(const RowShardMap& space);
RowShardMap HashPlan(const RowShardMap& space, uint64_t seed);

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_ALIS_REPLAN_H_
