#include "server/plan_cache.h"

#include "wire/plan_proto.h"

namespace shardplan {
namespace {

// Rough per-node overheads of the cache's own containers, so that many small plans are not
// counted as free.
constexpr int64_t kListNodeBytes = 32;
constexpr int64_t kHashNodeBytes = 48;

}  // namespace

int64_t ApproximatePlanBytes(const Plan& plan) {
  // The plan's API message holds the same content; protobuf measures its heap through
  // reflection, so every field counts without a line here per field.
  return static_cast<int64_t>(sizeof(Plan) + wire::PlanToProto(plan).SpaceUsedLong());
}

std::shared_ptr<const Plan> PlanCache::Lookup(const std::string& key) {
  std::optional<Hit> hit = LookupEntry(key);
  return hit ? std::move(hit->plan) : nullptr;
}

std::optional<PlanCache::Hit> PlanCache::LookupEntry(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = index_.find(key);
  if (found == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, found->second);
  return Hit{found->second->plan, found->second->imputed_table_warnings};
}

int64_t PlanCache::Insert(const std::string& key, std::shared_ptr<const Plan> plan,
                          std::vector<TableWarning> imputed_table_warnings) {
  int64_t warning_bytes = 0;
  for (const TableWarning& warning : imputed_table_warnings) {
    warning_bytes += static_cast<int64_t>(sizeof(TableWarning) + warning.table.size() +
                                          warning.code.size() + warning.message.size());
  }
  const int64_t entry_bytes = ApproximatePlanBytes(*plan) + warning_bytes +
                              2 * static_cast<int64_t>(key.size()) + kListNodeBytes +
                              kHashNodeBytes + static_cast<int64_t>(sizeof(Entry));
  std::lock_guard<std::mutex> lock(mu_);
  if (auto found = index_.find(key); found != index_.end()) EraseLocked(found->second);
  if (entry_bytes > capacity_bytes_) return 0;
  lru_.push_front(
      Entry{key, std::move(plan),
            std::make_shared<const std::vector<TableWarning>>(std::move(imputed_table_warnings)),
            entry_bytes});
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
