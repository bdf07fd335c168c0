#include "costmodels/neural/latent_memo.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace shardplan {

size_t LatentMemo::KeyHash::operator()(const Key& key) const {
  // Bit-exact keys (−0.0 and 0.0 differ, which only costs a miss), mixed 8 bytes at a time:
  // this runs once per shard per cost query, so it must cost far less than the MLP it saves.
  static_assert(sizeof(Key) % sizeof(uint64_t) == 0);
  uint64_t h = 0x9e3779b97f4a7c15ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(key.data());
  for (size_t i = 0; i < sizeof(Key); i += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, bytes + i, sizeof(word));
    h = (h ^ word) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return static_cast<size_t>(h);
}

bool LatentMemo::KeyEq::operator()(const Key& a, const Key& b) const {
  return std::memcmp(a.data(), b.data(), sizeof(Key)) == 0;
}

LatentMemo::LatentMemo(size_t capacity, int latent_size)
    : latent_size_(latent_size),
      per_shard_capacity_(std::max<size_t>(1, capacity / kShards)),
      shards_(new Shard[kShards]) {}

LatentMemo::Shard& LatentMemo::ShardOf(const Key& key, size_t hash) const {
  // The low bits pick the map's bucket; the high bits pick the shard.
  return shards_[(hash >> 56) % kShards];
}

bool LatentMemo::Find(const Key& key, std::span<float> latent) const {
  const size_t hash = KeyHash()(key);
  Shard& shard = ShardOf(key, hash);
  std::shared_lock lock(shard.mu);
  const auto it = shard.latents.find(key);
  if (it == shard.latents.end()) {
    shard.misses.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  std::copy(it->second.get(), it->second.get() + latent_size_, latent.begin());
  shard.hits.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void LatentMemo::Insert(const Key& key, std::span<const float> latent) {
  const size_t hash = KeyHash()(key);
  Shard& shard = ShardOf(key, hash);
  std::unique_ptr<float[]> copy(new float[latent_size_]);
  std::copy(latent.begin(), latent.begin() + latent_size_, copy.get());
  std::unique_lock lock(shard.mu);
  if (shard.latents.size() >= per_shard_capacity_ && !shard.latents.contains(key)) {
    shard.latents.clear();
    ++shard.clears;
  }
  shard.latents.try_emplace(key, std::move(copy));
}

LatentMemo::Stats LatentMemo::stats() const {
  Stats stats;
  for (size_t s = 0; s < kShards; ++s) {
    const Shard& shard = shards_[s];
    std::shared_lock lock(shard.mu);
    stats.hits += shard.hits.load(std::memory_order_relaxed);
    stats.misses += shard.misses.load(std::memory_order_relaxed);
    stats.entries += static_cast<int64_t>(shard.latents.size());
    stats.clears += shard.clears;
  }
  return stats;
}

}  // namespace shardplan
