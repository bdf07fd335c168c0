#include "planner/search/shard_cost_cache.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

namespace shardplan {
namespace {

// SplitMix64's finaliser: a bijection on 64 bits that spreads every input bit.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Per-thread buffers (a latent computed outside the table, a latent sum): after a thread's
// first calls the miss path does not allocate.
std::vector<float>& ThreadBuffer(std::vector<float>& buffer, size_t size) {
  if (buffer.size() < size) buffer.resize(size);
  return buffer;
}
std::vector<float>& ThreadLatent(size_t size) {
  thread_local std::vector<float> latent;
  return ThreadBuffer(latent, size);
}
std::vector<float>& ThreadLatentSum(size_t size) {
  thread_local std::vector<float> sum;
  return ThreadBuffer(sum, size);
}

}  // namespace

size_t ShardCostCache::ThreadSlot() {
  thread_local const size_t slot =
      std::hash<std::thread::id>{}(std::this_thread::get_id()) % kShards;
  return slot;
}

void DeviceShards::Add(const ShardCostCache& cache, const ShardView& shard) {
  if (!cache.direct_sets_) cache.AddToKey(key_, shard);  // direct costing looks nothing up
  shards_.push_back(shard);
  if (cache.sum_pooled_ != nullptr) {
    latent_sum_.resize(static_cast<size_t>(cache.sum_pooled_->latent_size()), 0.0f);
    cache.AddLatent(shard, latent_sum_.data());
  }
}

void DeviceShards::Clear() {
  key_ = {0, 0};
  shards_.clear();
  latent_sum_.clear();
}

ShardCostCache::ShardCostCache(const CostModel& model, const Task& task, bool enabled,
                               bool single_thread)
    : model_(model),
      sum_pooled_(model.sum_pooled_compute()),
      task_(task),
      context_(CostContext::For(task)),
      enabled_(enabled),
      single_thread_(single_thread),
      shards_(new Shard[kShards]),
      direct_sets_(enabled && sum_pooled_ != nullptr &&
                   task.tables.size() * static_cast<size_t>(task.topology.num_devices()) >=
                       kDirectFrom),
      direct_counts_(new DirectCount[kShards]) {
  // Room for the device sets a search typically meets (~60K on 90 tables x 8 devices), so the
  // maps do not grow (rehash, fault in fresh pages) a dozen times during the search.
  const size_t expected = std::min<size_t>(
      size_t{1} << 20, task.tables.size() * static_cast<size_t>(task.topology.num_devices()) * 64);
  if (enabled && !direct_sets_) {
    for (size_t i = 0; i < kShards; ++i) shards_[i].entries.reserve(expected / kShards);
  }
  if (sum_pooled_ != nullptr) {
    const size_t slots = task.tables.size() * kLatentLevels;
    latent_state_.reset(new std::atomic<uint8_t>[slots]);
    for (size_t i = 0; i < slots; ++i) latent_state_[i].store(0, std::memory_order_relaxed);
    latents_.resize(slots * static_cast<size_t>(sum_pooled_->latent_size()));
  }
}

ShardCostCache::~ShardCostCache() = default;

void ShardCostCache::AddToKey(Key& key, const ShardView& shard) const {
  const uint64_t table = static_cast<uint64_t>(shard.table - task_.tables.data());
  const uint64_t pair = (table << 32) | static_cast<uint32_t>(shard.columns);
  key[0] += Mix(pair);
  key[1] += Mix(pair ^ 0x5851f42d4c957f2dULL);
}

ShardCostCache::Key ShardCostCache::KeyOf(std::span<const ShardView> shards) const {
  Key key = {0, 0};
  for (const ShardView& shard : shards) AddToKey(key, shard);
  return key;
}

const float* ShardCostCache::CachedLatent(const CostContext& context,
                                          const ShardView& shard) const {
  const size_t table = static_cast<size_t>(shard.table - task_.tables.data());
  int level = 0;
  while (level < kLatentLevels && (shard.table->dim >> level) != shard.columns) ++level;
  if (table >= task_.tables.size() || level == kLatentLevels) return nullptr;
  const size_t slot = table * kLatentLevels + static_cast<size_t>(level);
  const size_t k = static_cast<size_t>(sum_pooled_->latent_size());
  float* latent = latents_.data() + slot * k;
  std::atomic<uint8_t>& state = latent_state_[slot];
  uint8_t seen = state.load(std::memory_order_acquire);
  if (seen == 2) return latent;
  if (seen == 0 && state.compare_exchange_strong(seen, 1, std::memory_order_acquire)) {
    sum_pooled_->ShardLatent(context, shard, std::span<float>(latent, k));
    state.store(2, std::memory_order_release);
    return latent;
  }
  while (state.load(std::memory_order_acquire) != 2) std::this_thread::yield();
  return latent;
}

void ShardCostCache::AddLatent(const ShardView& shard, float* sum) const {
  const size_t k = static_cast<size_t>(sum_pooled_->latent_size());
  const float* latent = CachedLatent(context_, shard);
  if (latent == nullptr) {  // not a halving of its table: no slot, computed each time
    std::vector<float>& scratch = ThreadLatent(k);
    sum_pooled_->ShardLatent(context_, shard, std::span<float>(scratch.data(), k));
    latent = scratch.data();
  }
  for (size_t j = 0; j < k; ++j) sum[j] += latent[j];
}

double ShardCostCache::Miss(const CostContext& context, std::span<const ShardView> shards) const {
  // Latents are kept per (table, columns), which only column-level shards are described by; a
  // device with row blocks or replicas (and, under a per-kernel-call model, its several calls)
  // is the model's to cost.
  if (sum_pooled_ == nullptr ||
      !std::all_of(shards.begin(), shards.end(),
                   [](const ShardView& s) { return IsColumnLevel(s.sharding); })) {
    return model_.ComputeCost(context, shards);
  }
  // Head(sum of latents), summed in shard order from zero as the model's own ComputeCost does.
  const size_t k = static_cast<size_t>(sum_pooled_->latent_size());
  std::vector<float>& sum = ThreadLatentSum(k);
  std::fill(sum.begin(), sum.begin() + k, 0.0f);
  for (const ShardView& shard : shards) AddLatent(shard, sum.data());
  return sum_pooled_->CostOfLatentSum(std::span<const float>(sum.data(), k));
}

template <typename MissFn>
double ShardCostCache::Lookup(const Key& key, const MissFn& miss) const {
  Shard& home = shards_[key[1] % kShards];
  if (single_thread_) {
    auto [it, inserted] = home.entries.try_emplace(key);
    if (!inserted) {
      ++home.hits;
      return it->second.value;
    }
    ++home.misses;
    it->second.value = miss();  // the model never calls back into the cache: `it` stays valid
    it->second.ready = true;
    return it->second.value;
  }
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
  const double cost = miss();
  lock.lock();
  Entry& entry = home.entries.find(key)->second;
  entry.value = cost;
  entry.ready = true;
  return cost;
}

double ShardCostCache::ComputeCost(const CostContext& context,
                                   std::span<const ShardView> shards) const {
  if (!enabled_) {
    {
      std::lock_guard<std::mutex> lock(shards_[0].mutex);  // the counts live in the shards
      ++shards_[0].misses;
    }
    return model_.ComputeCost(context, shards);  // the ablation: the model, every time
  }
  if (direct_sets_) {  // a big task keeps no map: its lookups would cost more than the Head
    direct_counts_[ThreadSlot()].value.fetch_add(1, std::memory_order_relaxed);
    return Miss(context, shards);
  }
  return Lookup(KeyOf(shards), [&] { return Miss(context, shards); });
}

double ShardCostCache::ComputeCost(const CostContext& context, const DeviceShards& set) const {
  if (!enabled_) return ComputeCost(context, set.shards());
  if (direct_sets_) {
    direct_counts_[ThreadSlot()].value.fetch_add(1, std::memory_order_relaxed);
    return sum_pooled_->CostOfLatentSum(set.latent_sum_);
  }
  return Lookup(set.key_, [&] {
    return sum_pooled_ != nullptr ? sum_pooled_->CostOfLatentSum(set.latent_sum_)
                                  : model_.ComputeCost(context, set.shards_);
  });
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
    total += direct_counts_[i].value.load(std::memory_order_relaxed);
  }
  for (size_t i = 0; i < kShards; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mutex);
    total += shards_[i].misses;
  }
  return total;
}

}  // namespace shardplan
