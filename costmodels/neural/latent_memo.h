#ifndef SHARDPLAN_COSTMODELS_NEURAL_LATENT_MEMO_H_
#define SHARDPLAN_COSTMODELS_NEURAL_LATENT_MEMO_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "costmodels/neural/table_features.h"

namespace shardplan {

// Process-wide memo of the compute model's per-table latent (the table MLP's output). The model
// sum-pools the latents, so a (table, columns) pair has the same latent in every device set of
// every search and every request: a search queries the same few thousand pairs millions of
// times. The key is the pair's 20 raw features, bit for bit, so two requests that describe the
// same table share entries and nothing depends on object addresses.
//
// A stored latent is the exact float output of the table MLP for that key, so using the memo
// never changes a result. Thread-safe; bounded: a shard that reaches its share of the capacity
// is cleared (cheap to refill, and no eviction bookkeeping on the hot path).
class LatentMemo {
 public:
  // The raw features, zero-padded to the widest feature set (and to whole 8-byte words, which
  // the hash reads).
  static constexpr int kKeyFloats = (kMaxComputeFeatures + 1) / 2 * 2;
  using Key = std::array<float, kKeyFloats>;

  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
    int64_t entries = 0;
    int64_t clears = 0;  // shards cleared because they were full
  };

  // `capacity` entries in all (at least one per shard); latents have `latent_size` floats.
  LatentMemo(size_t capacity, int latent_size);

  // Copies the latent of `key` into `latent` and returns true, or returns false.
  bool Find(const Key& key, std::span<float> latent) const;
  // Stores the latent of `key` (a no-op if present).
  void Insert(const Key& key, std::span<const float> latent);

  Stats stats() const;
  size_t capacity() const { return kShards * per_shard_capacity_; }

 private:
  static constexpr size_t kShards = 32;

  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  struct KeyEq {
    bool operator()(const Key& a, const Key& b) const;
  };
  struct Shard {
    mutable std::shared_mutex mu;
    absl::flat_hash_map<Key, std::unique_ptr<float[]>, KeyHash, KeyEq> latents;
    mutable std::atomic<int64_t> hits{0};
    mutable std::atomic<int64_t> misses{0};
    int64_t clears = 0;  // under mu
  };

  Shard& ShardOf(const Key& key, size_t hash) const;

  int latent_size_;
  size_t per_shard_capacity_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_LATENT_MEMO_H_
