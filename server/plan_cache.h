#ifndef SHARDPLAN_SERVER_PLAN_CACHE_H_
#define SHARDPLAN_SERVER_PLAN_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/domain/plan.h"
#include "server/planning_result.h"  // TableWarning

namespace shardplan {

// Approximate heap bytes of a plan (strings, vectors, maps), the unit of the cache's budget.
int64_t ApproximatePlanBytes(const Plan& plan);

// A thread-safe LRU cache of plans by request key, bounded by an approximate byte budget.
// Plans are shared immutable, so a lookup copies no plan under the lock.
class PlanCache {
 public:
  // `capacity_bytes` 0 disables the cache (every lookup misses, nothing is stored).
  explicit PlanCache(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // What an entry holds: the plan and what its computation found about the tables whose
  // histogram it imputed (PlanningResult::imputed_table_warnings).
  struct Hit {
    std::shared_ptr<const Plan> plan;
    std::shared_ptr<const std::vector<TableWarning>> imputed_table_warnings;  // never null
  };

  // The plan stored under `key` (now the most recently used), or null.
  std::shared_ptr<const Plan> Lookup(const std::string& key);
  // The entry stored under `key` (now the most recently used), or nullopt.
  std::optional<Hit> LookupEntry(const std::string& key);

  // Stores or replaces `key`'s plan, then evicts least recently used entries until the cache
  // fits its budget. Returns how many entries were evicted. A plan larger than the whole budget
  // is not stored.
  int64_t Insert(const std::string& key, std::shared_ptr<const Plan> plan,
                 std::vector<TableWarning> imputed_table_warnings = {});

  int64_t bytes() const;
  int64_t entries() const;
  int64_t capacity_bytes() const { return capacity_bytes_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const Plan> plan;
    std::shared_ptr<const std::vector<TableWarning>> imputed_table_warnings;
    int64_t bytes = 0;
  };
  using List = std::list<Entry>;  // most recently used first

  void EraseLocked(List::iterator it);

  const int64_t capacity_bytes_;
  mutable std::mutex mu_;
  List lru_;
  std::unordered_map<std::string, List::iterator> index_;
  int64_t bytes_ = 0;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLAN_CACHE_H_
