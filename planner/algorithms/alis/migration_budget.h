#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_MIGRATION_BUDGET_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_MIGRATION_BUDGET_H_

// A cap on what one re-plan may move (issue 30; the paper has none). When the proposed plan moves
// more, the moves kept are the hottest rows' first: a row's priority is the number of the
// window's requests that look it up (a misplaced hot row costs the most fan-out), ties by key;
// rows outside the window (moved by the vote or a fresh start) come last. A move is kept while
// it fits the rows and bytes left and its destination stays within the partition's balance cap
// (the window rows' loads, as in iterative_partition.h); the others are undone (the row stays
// where the previous plan had it). Placing a row for the first time is free: nothing moves.

#include <cstdint>

#include "planner/domain/row_shard_map.h"
#include "planner/traffic/cooccurrence.h"

namespace shardplan::alis {

struct MigrationBudget {
  int64_t rows = -1;   // -1: no limit
  int64_t bytes = -1;  // -1: no limit
  bool limited() const { return rows >= 0 || bytes >= 0; }
};

struct BudgetOutcome {
  int64_t proposed_moves = 0;
  int64_t kept_moves = 0;
  int64_t dropped_for_budget = 0;
  int64_t dropped_for_balance = 0;
};

struct BalanceRule {
  bool by_bytes = false;
  double imbalance = 0.05;
};

// Trims `proposed` (a plan of the same tables as `previous`) to `budget`.
BudgetOutcome ApplyMigrationBudget(const RowShardMap& previous, const CooccurrenceStats& window,
                                   const MigrationBudget& budget, const BalanceRule& balance,
                                   RowShardMap& proposed);

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_MIGRATION_BUDGET_H_
