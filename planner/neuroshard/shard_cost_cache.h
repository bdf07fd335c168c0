#ifndef SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_
#define SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_

// The compute-cost cache of one NeuroShard search, as a CostModel decorator so that the plan-cost
// helpers (CostOfPlacement) use it unchanged.

#include <atomic>
#include <cstdint>
#include <future>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "planner/cost_model.h"
#include "planner/task.h"

namespace shardplan::neuroshard {

// Compute costs keyed by the canonical multiset of (task table index, columns) on a device: the
// pairs sorted, so the key does not depend on placement order (the reference's key is
// insertion-ordered). Rows are not in the key because NeuroShard shards always hold all rows.
// Comm queries pass through uncached. Thread-safe.
//
// The first lookup of a key is its one miss and computes it; concurrent lookups of that key
// wait for the value and count as hits. So hits and misses depend only on the multiset of
// lookups, never on thread timing. Disabled, every lookup is a miss and calls the model.
class ShardCostCache : public CostModel {
 public:
  // `task` must outlive the cache and be the task every ShardView points into.
  ShardCostCache(const CostModel& model, const Task& task, bool enabled);

  std::string id() const override { return model_.id(); }
  absl::Status CheckSupports(const Task& task) const override { return model_.CheckSupports(task); }
  double ComputeCost(const CostContext& context, std::span<const ShardView> shards) const override;
  std::vector<double> BackwardCommCosts(const CostContext& context,
                                        std::span<const int64_t> dim_sums) const override {
    return model_.BackwardCommCosts(context, dim_sums);
  }
  std::vector<double> ForwardCommCosts(const CostContext& context,
                                       std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override {
    return model_.ForwardCommCosts(context, dim_sums, waits);
  }

  int64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  int64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  using Key = std::vector<std::pair<int32_t, int32_t>>;  // (table index, columns), sorted

  const CostModel& model_;
  const Task& task_;
  const bool enabled_;
  mutable std::mutex mutex_;
  mutable absl::flat_hash_map<Key, std::shared_future<double>> values_;
  mutable std::atomic<int64_t> hits_{0};
  mutable std::atomic<int64_t> misses_{0};
};

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_
