#include "server/plan_cache.h"

namespace shardplan {
namespace {

// Rough per-node overheads of the standard containers, so that many small plans are not
// counted as free.
constexpr int64_t kStringBytes = sizeof(std::string);
constexpr int64_t kMapNodeBytes = 48;
constexpr int64_t kListNodeBytes = 32;
constexpr int64_t kHashNodeBytes = 48;

int64_t StringBytes(const std::string& s) { return kStringBytes + static_cast<int64_t>(s.size()); }

}  // namespace

int64_t ApproximatePlanBytes(const Plan& plan) {
  int64_t bytes = sizeof(Plan);
  for (const TableSharding& table : plan.tables) {
    bytes += sizeof(TableSharding) + static_cast<int64_t>(table.table.size()) +
             static_cast<int64_t>(table.shards.size() * sizeof(Shard));
  }
  bytes += static_cast<int64_t>(plan.devices.size() * sizeof(DeviceCost));
  bytes += static_cast<int64_t>(plan.algorithm.size() + plan.cost_model.size() +
                                plan.cost_kind.size() + plan.request_hash.size());
  for (const auto& [name, value] : plan.parameters) {
    bytes += kMapNodeBytes + StringBytes(name) + StringBytes(value);
  }
  for (const std::string& split : plan.stats.column_splits) bytes += StringBytes(split);
  bytes += StringBytes(plan.selection);
  for (const PlanWarning& warning : plan.warnings) {
    bytes += static_cast<int64_t>(sizeof(PlanWarning)) +
             static_cast<int64_t>(warning.code.size() + warning.field.size() +
                                  warning.message.size());
  }
  return bytes;
}

std::shared_ptr<const Plan> PlanCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->plan;
}

int64_t PlanCache::Insert(const std::string& key, std::shared_ptr<const Plan> plan) {
  const int64_t entry_bytes = ApproximatePlanBytes(*plan) + 2 * static_cast<int64_t>(key.size()) +
                              kListNodeBytes + kHashNodeBytes + static_cast<int64_t>(sizeof(Entry));
  std::lock_guard<std::mutex> lock(mu_);
  if (auto found = index_.find(key); found != index_.end()) EraseLocked(found->second);
  if (entry_bytes > capacity_bytes_) return 0;
  lru_.push_front(Entry{key, std::move(plan), entry_bytes});
  index_[key] = lru_.begin();
  bytes_ += entry_bytes;
  int64_t evicted = 0;
  while (bytes_ > capacity_bytes_) {
    EraseLocked(std::prev(lru_.end()));
    ++evicted;
  }
  return evicted;
}

void PlanCache::EraseLocked(List::iterator it) {
  bytes_ -= it->bytes;
  index_.erase(it->key);
  lru_.erase(it);
}

int64_t PlanCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

int64_t PlanCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(lru_.size());
}

}  // namespace shardplan
