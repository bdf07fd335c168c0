#include "planner/neuroshard/shard_cost_cache.h"

#include <thread>

namespace shardplan::neuroshard {
namespace {

// SplitMix64's finaliser: a bijection on 64 bits that spreads every input bit.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ShardCostCache::ShardCostCache(const CostModel& model, const Task& task, bool enabled)
    : model_(model), task_(task), enabled_(enabled), shards_(new Shard[kShards]) {}

ShardCostCache::~ShardCostCache() = default;

ShardCostCache::Key ShardCostCache::KeyOf(std::span<const ShardView> shards) const {
  Key key = {0, 0};
  for (const ShardView& shard : shards) {
    const uint64_t table = static_cast<uint64_t>(shard.table - task_.tables.data());
    const uint64_t pair = (table << 32) | static_cast<uint32_t>(shard.columns);
    key[0] += Mix(pair);
    key[1] += Mix(pair ^ 0x5851f42d4c957f2dULL);
  }
  return key;
}

double ShardCostCache::ComputeCost(const CostContext& context,
                                   std::span<const ShardView> shards) const {
  if (!enabled_) {
    {
      std::lock_guard<std::mutex> lock(shards_[0].mutex);  // the counts live in the shards
      ++shards_[0].misses;
    }
    return model_.ComputeCost(context, shards);
  }
  const Key key = KeyOf(shards);
  Shard& home = shards_[key[1] % kShards];
  std::unique_lock<std::mutex> lock(home.mutex);
  auto [it, inserted] = home.entries.try_emplace(key);
  if (!inserted) {
    ++home.hits;
    // Rare: another thread missed this key and is still running the model. Entries can move
    // when the map grows, so look the key up again each time.
    while (!it->second.ready) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      it = home.entries.find(key);
    }
    return it->second.value;
  }
  ++home.misses;
  lock.unlock();  // the model runs outside the lock
  const double cost = model_.ComputeCost(context, shards);
  lock.lock();
  Entry& entry = home.entries.find(key)->second;
  entry.value = cost;
  entry.ready = true;
  return cost;
}

int64_t ShardCostCache::hits() const {
  int64_t total = 0;
  for (size_t i = 0; i < kShards; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mutex);
    total += shards_[i].hits;
  }
  return total;
}

int64_t ShardCostCache::misses() const {
  int64_t total = 0;
  for (size_t i = 0; i < kShards; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mutex);
    total += shards_[i].misses;
  }
  return total;
}

}  // namespace shardplan::neuroshard
