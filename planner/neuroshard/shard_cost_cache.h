#ifndef SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_
#define SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_

// The compute-cost cache of one NeuroShard search, as a CostModel decorator so that the plan-cost
// helpers (CostOfPlacement) use it unchanged.

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "planner/cost_model.h"
#include "planner/task.h"

namespace shardplan::neuroshard {

// Compute costs keyed by the multiset of (task table index, columns) on a device, so the key
// does not depend on placement order (the reference's key is insertion-ordered). Rows are not in
// the key because NeuroShard shards always hold all rows. Comm queries pass through uncached.
// Thread-safe.
//
// The key is a 128-bit multiset hash: the sum, per 64-bit half, of a bijective mix of each
// (table, columns) pair. Summing makes it order-independent without sorting, and building it
// allocates nothing; a search makes millions of lookups (7 M at 1000 tables on 128 devices), and
// sorted-vector keys spent half of the search's time in key building, hashing and malloc. Two
// different multisets share a key with probability about n^2 / 2^129 for n entries (1e-26 at
// 2 M entries).
//
// The first lookup of a key is its one miss and computes it; concurrent lookups of that key
// wait for the value and count as hits. So hits and misses depend only on the multiset of
// lookups, never on thread timing. Disabled, every lookup is a miss and calls the model.
class ShardCostCache : public CostModel {
 public:
  // `task` must outlive the cache and be the task every ShardView points into.
  ShardCostCache(const CostModel& model, const Task& task, bool enabled);
  ~ShardCostCache() override;

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

  int64_t hits() const;
  int64_t misses() const;

 private:
  using Key = std::array<uint64_t, 2>;
  struct Entry {
    double value = 0.0;
    bool ready = false;  // false while the thread that missed runs the model
  };
  // Lookups spread over independently locked shards so that beam candidates evaluated on
  // several threads rarely wait for each other.
  struct Shard {
    std::mutex mutex;
    absl::flat_hash_map<Key, Entry> entries;
    int64_t hits = 0;
    int64_t misses = 0;
  };
  static constexpr size_t kShards = 16;

  Key KeyOf(std::span<const ShardView> shards) const;

  const CostModel& model_;
  const Task& task_;
  const bool enabled_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace shardplan::neuroshard

#endif  // SHARDPLAN_PLANNER_NEUROSHARD_SHARD_COST_CACHE_H_
