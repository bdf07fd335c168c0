#ifndef SHARDPLAN_PLANNER_ALGORITHMS_ALIS_SHARD_WEIGHTS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_ALIS_SHARD_WEIGHTS_H_

// ALIS's weight matrix W[e][j] (papers/notes/alis.md section 2.3): a row's accumulated tendency
// towards each shard. Sparse (ours): only rows some window requested have weights, so memory is
// (rows seen) x (shards x 4 + ~24) bytes, not |E| x S x 4 (the paper's Fig. 11); a row without
// weights keeps its plan's shard.
//
// Decay (ours; docs/alis.md): before a row's weights grow at update u, they are multiplied by
// decay^(u - u_last), u_last its previous update. decay = 1 is the paper's literal rule
// (W += dW only); decay < 1 lets a row that co-occurred with one group for many windows follow
// a new group within a window or two instead of as many as it stayed. Scaling a row's weights
// does not change its argmax, so the decay is applied lazily, only to rows being updated.

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "planner/domain/row_shard_map.h"

namespace shardplan::alis {

class ShardWeights {
 public:
  // Not explicit when empty, so that a State may leave its weights out of a designated
  // initializer (clang refuses an explicit default constructor there).
  ShardWeights() = default;
  explicit ShardWeights(int shards) : shards_(shards) {}

  int shards() const { return shards_; }
  int64_t rows() const { return static_cast<int64_t>(keys_.size()); }
  // Bytes of the weights and their index (the hash map's slots estimated at 16 bytes a row).
  int64_t MemoryBytes() const;

  // Decays row `key`'s weights to update `update`, then adds `amounts` (one per shard).
  void Add(uint64_t key, int64_t update, double decay, std::span<const float> amounts);
  // The same for one shard: W[key][shard] += amount.
  void AddOne(uint64_t key, int64_t update, double decay, ShardId shard, float amount);
  // The shard of the row's largest weight; ties go to `prefer` when it is among them, else to
  // the lowest shard. kUnassignedShard for a row without weights.
  ShardId Argmax(uint64_t key, ShardId prefer) const;
  // Forgets the rows last updated before `oldest_update` (in slot order, so deterministic).
  void ForgetRowsBefore(int64_t oldest_update);

 private:
  float* WeightsOf(uint64_t key, int64_t update, double decay);

  int shards_ = 0;
  absl::flat_hash_map<uint64_t, uint32_t> slot_of_;
  std::vector<uint64_t> keys_;        // per slot
  std::vector<int64_t> last_update_;  // per slot
  std::vector<float> weights_;        // slot x shards
};

}  // namespace shardplan::alis

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_ALIS_SHARD_WEIGHTS_H_
