#include "planner/neuroshard/shard_cost_cache.h"

#include <algorithm>

namespace shardplan::neuroshard {

ShardCostCache::ShardCostCache(const CostModel& model, const Task& task, bool enabled)
    : model_(model), task_(task), enabled_(enabled) {}

double ShardCostCache::ComputeCost(const CostContext& context,
                                   std::span<const ShardView> shards) const {
  if (!enabled_) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return model_.ComputeCost(context, shards);
  }
  Key key;
  key.reserve(shards.size());
  for (const ShardView& shard : shards) {
    key.emplace_back(static_cast<int32_t>(shard.table - task_.tables.data()), shard.columns);
  }
  std::sort(key.begin(), key.end());

  std::promise<double> promise;
  std::unique_lock<std::mutex> lock(mutex_);
  auto [it, inserted] = values_.try_emplace(std::move(key));
  if (!inserted) {
    std::shared_future<double> value = it->second;
    lock.unlock();
    hits_.fetch_add(1, std::memory_order_relaxed);
    return value.get();  // waits while the thread that missed runs the model
  }
  it->second = promise.get_future().share();
  lock.unlock();  // the model runs outside the lock
  misses_.fetch_add(1, std::memory_order_relaxed);
  const double cost = model_.ComputeCost(context, shards);
  promise.set_value(cost);
  return cost;
}

}  // namespace shardplan::neuroshard
