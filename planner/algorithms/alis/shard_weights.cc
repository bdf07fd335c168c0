#include "planner/algorithms/alis/shard_weights.h"

#include <cmath>

namespace shardplan::alis {

int64_t ShardWeights::MemoryBytes() const {
  return static_cast<int64_t>(weights_.size() * sizeof(float) + keys_.size() * sizeof(uint64_t) +
                              last_update_.size() * sizeof(int64_t) + slot_of_.size() * 16);
}

float* ShardWeights::WeightsOf(uint64_t key, int64_t update, double decay) {
  auto [it, inserted] = slot_of_.try_emplace(key, static_cast<uint32_t>(keys_.size()));
  if (inserted) {
    keys_.push_back(key);
    last_update_.push_back(update);
    weights_.resize(weights_.size() + shards_, 0.0f);
  }
  const uint32_t slot = it->second;
  float* weights = weights_.data() + static_cast<size_t>(slot) * shards_;
  const int64_t age = update - last_update_[slot];
  if (age > 0 && decay != 1.0) {
    const float factor = static_cast<float>(std::pow(decay, static_cast<double>(age)));
    for (int s = 0; s < shards_; ++s) weights[s] *= factor;
  }
  if (age > 0) last_update_[slot] = update;
  return weights;
}

void ShardWeights::Add(uint64_t key, int64_t update, double decay, std::span<const float> amounts) {
  float* weights = WeightsOf(key, update, decay);
  for (int s = 0; s < shards_; ++s) weights[s] += amounts[s];
}

void ShardWeights::AddOne(uint64_t key, int64_t update, double decay, ShardId shard, float amount) {
  WeightsOf(key, update, decay)[shard] += amount;
}

ShardId ShardWeights::Argmax(uint64_t key, ShardId prefer) const {
  auto it = slot_of_.find(key);
  if (it == slot_of_.end()) return kUnassignedShard;
  const float* weights = weights_.data() + static_cast<size_t>(it->second) * shards_;
  int best = 0;
  for (int s = 1; s < shards_; ++s) {
    if (weights[s] > weights[best]) best = s;
  }
  if (prefer != kUnassignedShard && prefer < shards_ && weights[prefer] == weights[best]) {
    return prefer;
  }
  return static_cast<ShardId>(best);
}

void ShardWeights::ForgetRowsBefore(int64_t oldest_update) {
  size_t kept = 0;
  for (size_t slot = 0; slot < keys_.size(); ++slot) {
    if (last_update_[slot] < oldest_update) continue;
    if (kept != slot) {
      keys_[kept] = keys_[slot];
      last_update_[kept] = last_update_[slot];
      std::copy_n(weights_.begin() + static_cast<std::ptrdiff_t>(slot * shards_), shards_,
                  weights_.begin() + static_cast<std::ptrdiff_t>(kept * shards_));
    }
    ++kept;
  }
  if (kept == keys_.size()) return;
  keys_.resize(kept);
  last_update_.resize(kept);
  weights_.resize(kept * shards_);
  slot_of_.clear();
  for (size_t slot = 0; slot < kept; ++slot) slot_of_[keys_[slot]] = static_cast<uint32_t>(slot);
}

}  // namespace shardplan::alis
