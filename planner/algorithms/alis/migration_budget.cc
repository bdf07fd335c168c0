#include "planner/algorithms/alis/migration_budget.h"

#include <algorithm>
#include <vector>

#include "planner/algorithms/alis/iterative_partition.h"

namespace shardplan::alis {
namespace {

struct MoveCandidate {
  int64_t requests = 0;  // the row's requests in the window; 0 outside it
  int64_t local_id = -1;
  RowMove move;
};

}  // namespace

BudgetOutcome ApplyMigrationBudget(const RowShardMap& previous, const CooccurrenceStats& window,
                                   const MigrationBudget& budget, const BalanceRule& balance,
                                   RowShardMap& proposed) {
  BudgetOutcome outcome;
  std::vector<MoveCandidate> moves;
  int64_t rows_needed = 0, bytes_needed = 0;
  for (size_t t = 0; t < previous.tables().size(); ++t) {
    const std::vector<ShardId>& before = previous.TableShards(static_cast<int>(t));
    const std::vector<ShardId>& after = proposed.TableShards(static_cast<int>(t));
    for (size_t row = 0; row < before.size(); ++row) {
      if (before[row] == after[row] || before[row] == kUnassignedShard) continue;
      MoveCandidate candidate;
      candidate.move = {PackRowKey(static_cast<int64_t>(t), static_cast<int64_t>(row)), before[row],
                        after[row]};
      auto it = std::lower_bound(window.rows.begin(), window.rows.end(), candidate.move.key);
      if (it != window.rows.end() && *it == candidate.move.key) {
        candidate.local_id = it - window.rows.begin();
        candidate.requests = window.row_requests[candidate.local_id];
      }
      moves.push_back(candidate);
      ++rows_needed;
      bytes_needed += previous.tables()[t].row_bytes;
    }
  }
  outcome.proposed_moves = static_cast<int64_t>(moves.size());
  const bool fits = (budget.rows < 0 || rows_needed <= budget.rows) &&
                    (budget.bytes < 0 || bytes_needed <= budget.bytes);
  if (fits) {
    outcome.kept_moves = outcome.proposed_moves;
    return outcome;
  }
  std::stable_sort(moves.begin(), moves.end(), [](const MoveCandidate& a, const MoveCandidate& b) {
    return a.requests > b.requests;  // keys ascend within equal priority (collected in order)
  });
  // The window rows' loads per shard under the previous plan, and the cap they must keep.
  std::vector<int64_t> loads(window.rows.size());
  for (size_t lid = 0; lid < window.rows.size(); ++lid) {
    loads[lid] = balance.by_bytes ? previous.RowBytesOf(window.rows[lid]) : 1;
  }
  const int64_t cap = BalanceCap(loads, previous.shards(), balance.imbalance);
  std::vector<int64_t> per_shard(previous.shards(), 0);
  for (size_t lid = 0; lid < window.rows.size(); ++lid) {
    const ShardId shard = previous.ShardOf(window.rows[lid]);
    if (shard != kUnassignedShard) per_shard[shard] += loads[lid];
  }
  int64_t rows_left = budget.rows, bytes_left = budget.bytes;
  for (const MoveCandidate& candidate : moves) {
    const RowMove& move = candidate.move;
    const int64_t bytes = previous.RowBytesOf(move.key);
    const bool affordable =
        (rows_left < 0 || rows_left >= 1) && (bytes_left < 0 || bytes_left >= bytes);
    const int64_t load = candidate.local_id >= 0 ? loads[candidate.local_id] : 0;
    const bool balanced = load == 0 || per_shard[move.to] + load <= cap;
    if (affordable && balanced) {
      if (rows_left > 0) --rows_left;
      if (bytes_left > 0) bytes_left -= bytes;
      per_shard[move.from] -= load;
      per_shard[move.to] += load;
      ++outcome.kept_moves;
      continue;
    }
    proposed.Assign(move.key, move.from);
    ++(affordable ? outcome.dropped_for_balance : outcome.dropped_for_budget);
  }
  return outcome;
}

}  // namespace shardplan::alis
