#ifndef SHARDPLAN_PLANNER_SEARCH_SHARD_COST_CACHE_H_
#define SHARDPLAN_PLANNER_SEARCH_SHARD_COST_CACHE_H_

// The compute-cost cache of one search, keyed by a device's shards as a multiset (order never
// matters), as a CostModel decorator so that the plan-cost helpers (CostOfPlacement) use it
// unchanged. NeuroShard's search uses it; so can any search that costs the same device sets
// again and again.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/task.h"

namespace shardplan {

class ShardCostCache;

// One device's shards as NeuroShard's greedy grows them, with the set's cache key (and, under a
// sum-pooled model, its latent sum) kept up to date shard by shard: looking up a grown set costs
// one key update, and costing a new one one Head, not a pass over its shards.
class DeviceShards {
 public:
  void Add(const ShardCostCache& cache, const ShardView& shard);
  // Empty again; keeps the buffers.
  void Clear();
  std::span<const ShardView> shards() const { return shards_; }

 private:
  friend class ShardCostCache;
  std::array<uint64_t, 2> key_ = {0, 0};
  std::vector<ShardView> shards_;
  std::vector<float> latent_sum_;  // empty unless the model is sum-pooled
};

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
// lookups, never on thread timing. Disabled, every lookup is a miss and calls the model; on a
// big task under a sum-pooled model (kDirectFrom) every lookup is a miss too, costed directly.
//
// A miss under a sum-pooled model (CostModel::sum_pooled_compute, the neural compute model) is
// Head(sum of the shards' latents), each latent computed once per search and kept in a table
// indexed by (task table, halving level): bit-identical to the model's ComputeCost, without its
// per-shard feature building and process-wide memo lookups.
class ShardCostCache : public CostModel {
 public:
  // `task` must outlive the cache and be the task every ShardView points into. With
  // `single_thread`, the caller promises that one thread at a time uses the cache, and lookups
  // take no lock (an uncontended lock pair per lookup was a tenth of a one-thread search).
  ShardCostCache(const CostModel& model, const Task& task, bool enabled,
                 bool single_thread = false);
  ~ShardCostCache() override;

  std::string id() const override { return model_.id(); }
  absl::Status CheckSupports(const Task& task) const override { return model_.CheckSupports(task); }
  // The key holds (table, columns) only: row-level and data-parallel shards, which serve a share
  // of their table, are not cached, so the cache costs the column level alone.
  bool CostsShardingType(ShardingType type) const override {
    return IsColumnLevel(type) && model_.CostsShardingType(type);
  }
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

  // ComputeCost of `set`'s shards, looked up by its running key; on a big task under a
  // sum-pooled model, Head(its running latent sum) without a lookup (see kDirectFrom).
  double ComputeCost(const CostContext& context, const DeviceShards& set) const;

  int64_t hits() const;
  int64_t misses() const;

 private:
  friend class DeviceShards;
  using Key = std::array<uint64_t, 2>;
  // Keys are sums of mixed 64-bit values already: one half is a fine hash, and comparing two
  // words beats the generic array hash and memcmp on the search's hottest path.
  struct KeyHash {
    size_t operator()(const Key& key) const { return static_cast<size_t>(key[0]); }
  };
  struct KeyEq {
    bool operator()(const Key& a, const Key& b) const { return a[0] == b[0] && a[1] == b[1]; }
  };
  struct Entry {
    double value = 0.0;
    bool ready = false;  // false while the thread that missed runs the model
  };
  // Lookups spread over independently locked shards so that beam candidates evaluated on
  // several threads rarely wait for each other.
  struct alignas(64) Shard {  // a cache line each: threads on different shards share none
    std::mutex mutex;
    absl::flat_hash_map<Key, Entry, KeyHash, KeyEq> entries;
    int64_t hits = 0;
    int64_t misses = 0;
  };
  static constexpr size_t kShards = 16;
  // From this many tables x devices on (250 tables on 16 devices), a sum-pooled model costs
  // every device set directly and the cache keeps no map: one Head (32->64->1) over a grown
  // set's running latent sum is cheaper than a lookup in a map that has outgrown the CPU caches
  // and, with two threads, than the shard locks (bench/scale, docs/neuroshard.md "Cost cache":
  // 1000 x 128 plans in 0.72 s instead of 1.86 s on two threads). Smaller tasks keep the map,
  // whose hits are cheaper than a Head there (60 x 4: 17 ms against 22). The values are the
  // model's either way, up to float summation order (the map serves the first order it saw).
  static constexpr size_t kDirectFrom = 4000;
  struct alignas(64) DirectCount {
    std::atomic<int64_t> value{0};
  };
  // A slot of direct_counts_ per thread, so that threads rarely share a counter's line.
  static size_t ThreadSlot();
  // Halvings a latent slot exists for: columns = dim >> level, level < kLatentLevels.
  static constexpr int kLatentLevels = 8;

  // Adds the (table, columns) pair of `shard` to `key`.
  void AddToKey(Key& key, const ShardView& shard) const;
  Key KeyOf(std::span<const ShardView> shards) const;
  // The cached value of `key`, or `miss()` stored under it.
  template <typename MissFn>
  double Lookup(const Key& key, const MissFn& miss) const;
  // The model's cost of `shards` on a miss.
  double Miss(const CostContext& context, std::span<const ShardView> shards) const;
  // Adds the latent of `shard` to `sum` (latent_size() floats).
  void AddLatent(const ShardView& shard, float* sum) const;
  // The latent of `shard` from the per-search table (filled on first use), or null when the
  // shard's columns are not a halving of its table's dim.
  const float* CachedLatent(const CostContext& context, const ShardView& shard) const;

  const CostModel& model_;
  const SumPooledCompute* const sum_pooled_;  // null: the model is not sum-pooled
  const Task& task_;
  const CostContext context_;  // the task's
  const bool enabled_;
  const bool single_thread_;
  std::unique_ptr<Shard[]> shards_;
  const bool direct_sets_;  // kDirectFrom
  // Direct costings (counted as misses: each calls the model), per thread slot.
  std::unique_ptr<DirectCount[]> direct_counts_;
  // Per (task table, level): 0 empty, 1 being computed, 2 ready; and the latents, flat.
  std::unique_ptr<std::atomic<uint8_t>[]> latent_state_;
  mutable std::vector<float> latents_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_SHARD_COST_CACHE_H_
