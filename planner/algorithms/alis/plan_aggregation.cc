#include "planner/algorithms/alis/plan_aggregation.h"

#include <cmath>
#include <vector>

namespace shardplan::alis {

std::vector<double> HistoryVoteWeights(std::span<const HistoryPlan> history, int64_t now,
                                       double age_decay) {
  double inverse_sum = 0.0;
  int measured = 0;
  for (const HistoryPlan& entry : history) {
    if (std::isfinite(entry.cost) && entry.cost > 0.0) {
      inverse_sum += 1.0 / entry.cost;
      ++measured;
    }
  }
  const double unmeasured_inverse = measured > 0 ? inverse_sum / measured : 1.0;
  std::vector<double> weights;
  double total = 0.0;
  for (const HistoryPlan& entry : history) {
    const double inverse =
        std::isfinite(entry.cost) && entry.cost > 0.0 ? 1.0 / entry.cost : unmeasured_inverse;
    const double age = static_cast<double>(std::max<int64_t>(now - entry.update, 1));
    weights.push_back(inverse * std::pow(age_decay, age - 1.0));
    total += weights.back();
  }
  for (double& w : weights) w = total > 0.0 ? w / total : 0.0;
  return weights;
}

RowShardMap AggregatePlans(const RowShardMap& candidate, std::span<const HistoryPlan> history,
                           int64_t now, const AggregationOptions& options) {
  if (history.empty()) return candidate;
  const std::vector<double> weights = HistoryVoteWeights(history, now, options.age_decay);
  RowShardMap out = candidate;
  // At most history + 1 shards receive votes for a row: a small list beats a per-shard array.
  std::vector<std::pair<ShardId, double>> votes;
  for (size_t t = 0; t < candidate.tables().size(); ++t) {
    const int table = static_cast<int>(t);
    const std::vector<ShardId>& proposed = candidate.TableShards(table);
    std::vector<ShardId>& chosen = out.MutableTableShards(table);
    for (size_t row = 0; row < proposed.size(); ++row) {
      bool all_agree = true;
      for (const HistoryPlan& entry : history) {
        if (entry.plan.TableShards(table)[row] != proposed[row]) {
          all_agree = false;
          break;
        }
      }
      if (all_agree) continue;
      votes.clear();
      auto vote = [&](ShardId shard, double weight) {
        if (shard == kUnassignedShard) return;
        for (auto& [s, v] : votes) {
          if (s == shard) {
            v += weight;
            return;
          }
        }
        votes.emplace_back(shard, weight);
      };
      vote(proposed[row], 1.0 - options.beta);
      for (size_t i = 0; i < history.size(); ++i) {
        vote(history[i].plan.TableShards(table)[row], options.beta * weights[i]);
      }
      if (votes.empty()) continue;
      // The candidate's shard (first in the list when placed) wins ties; otherwise the lower.
      auto best = votes.begin();
      for (auto it = votes.begin() + 1; it != votes.end(); ++it) {
        const bool best_is_candidate = best->first == proposed[row];
        if (it->second > best->second ||
            (it->second == best->second && !best_is_candidate && it->first < best->first)) {
          best = it;
        }
      }
      chosen[row] = best->first;
    }
  }
  return out;
}

}  // namespace shardplan::alis
