#include "planner/algorithms/alis/label_alignment.h"

#include <vector>

namespace shardplan::alis {

int64_t AlignShardLabels(const RowShardMap& reference, RowShardMap& plan) {
  const int shards = plan.shards();
  std::vector<int64_t> overlap(static_cast<size_t>(shards) * shards, 0);  // [new][old]
  for (size_t t = 0; t < plan.tables().size(); ++t) {
    const std::vector<ShardId>& before = reference.TableShards(static_cast<int>(t));
    const std::vector<ShardId>& after = plan.TableShards(static_cast<int>(t));
    for (size_t row = 0; row < after.size(); ++row) {
      if (before[row] != kUnassignedShard && after[row] != kUnassignedShard) {
        ++overlap[static_cast<size_t>(after[row]) * shards + before[row]];
      }
    }
  }
  std::vector<int> rename(shards, -1);
  std::vector<bool> taken(shards, false);
  for (int round = 0; round < shards; ++round) {
    int best_new = -1, best_old = -1;
    for (int n = 0; n < shards; ++n) {
      if (rename[n] >= 0) continue;
      for (int o = 0; o < shards; ++o) {
        if (taken[o]) continue;
        if (best_new < 0 || overlap[n * shards + o] > overlap[best_new * shards + best_old]) {
          best_new = n;
          best_old = o;
        }
      }
    }
    rename[best_new] = best_old;
    taken[best_old] = true;
  }
  int64_t stay = 0;
  for (int n = 0; n < shards; ++n) stay += overlap[n * shards + rename[n]];
  for (size_t t = 0; t < plan.tables().size(); ++t) {
    for (ShardId& shard : plan.MutableTableShards(static_cast<int>(t))) {
      if (shard != kUnassignedShard) shard = static_cast<ShardId>(rename[shard]);
    }
  }
  return stay;
}

}  // namespace shardplan::alis
