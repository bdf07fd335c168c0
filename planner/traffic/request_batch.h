#ifndef SHARDPLAN_PLANNER_TRAFFIC_REQUEST_BATCH_H_
#define SHARDPLAN_PLANNER_TRAFFIC_REQUEST_BATCH_H_

// Inference requests in time order, each the set of rows (packed keys, planner/domain/
// row_shard_map.h) it looks up across all tables: the unit of ALIS's co-occurrence.

#include <cstdint>
#include <span>
#include <vector>

namespace shardplan {

// Requests stored back to back (CSR): request i is keys[offsets[i], offsets[i + 1]).
class RequestBatch {
 public:
  int64_t size() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  int64_t lookups() const { return static_cast<int64_t>(keys_.size()); }
  std::span<const uint64_t> operator[](int64_t i) const {
    return {keys_.data() + offsets_[i], static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }
  void Add(std::span<const uint64_t> request) {
    keys_.insert(keys_.end(), request.begin(), request.end());
    offsets_.push_back(static_cast<int64_t>(keys_.size()));
  }
  void Clear() {
    offsets_.assign(1, 0);
    keys_.clear();
  }

 private:
  std::vector<int64_t> offsets_{0};
  std::vector<uint64_t> keys_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_TRAFFIC_REQUEST_BATCH_H_
