#ifndef SHARDPLAN_GROUNDTRUTH_CPU_EMBEDDING_BAG_KERNEL_H_
#define SHARDPLAN_GROUNDTRUTH_CPU_EMBEDDING_BAG_KERNEL_H_

#include <cstdint>
#include <span>

namespace shardplan {

// One fp32 table, rows x dim, row-major. The kernel reads and updates `weights` in place.
struct EmbeddingTableView {
  float* weights = nullptr;
  int64_t rows = 0;
  int32_t dim = 0;
};

// A fused batch in FBGEMM's table-batched (TBE) layout: for table t and sample b, the bag is
// indices[offsets[t * batch_size + b] .. offsets[t * batch_size + b + 1]), row ids local to
// table t. offsets has num_tables * batch_size + 1 entries. Pooled outputs are one row-major
// [batch_size, sum of dims] matrix; table t's columns start at column_offsets[t].
struct FusedLookups {
  int64_t batch_size = 0;
  std::span<const int64_t> indices;
  std::span<const int64_t> offsets;
  std::span<const int64_t> column_offsets;  // num_tables + 1 entries, last = sum of dims
};

// Forward: sum-pooled bags of every (table, sample) in one pass over all tables. Work is split
// into `num_parts` disjoint slices of (table, sample) bags; part `part` computes its slice, so
// parts may run concurrently. No allocation. Empty bags give zeros.
void EmbeddingBagForward(std::span<const EmbeddingTableView> tables, const FusedLookups& lookups,
                         float* output, int part = 0, int num_parts = 1);

// Backward with exact SGD: for every lookup of row r in bag (t, b), weights_t[r] -= lr *
// grad_output[b, columns of t]; a row looked up k times gets k updates (duplicates accumulate,
// which equals applying the summed gradient once, since SGD is linear). Part `part` of
// `num_parts` applies the updates of rows with r % num_parts == part, so parts never write the
// same row and may run concurrently (each part scans all indices). No allocation.
void EmbeddingBagBackwardSgd(std::span<const EmbeddingTableView> tables,
                             const FusedLookups& lookups, const float* grad_output,
                             float learning_rate, int part = 0, int num_parts = 1);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_CPU_EMBEDDING_BAG_KERNEL_H_
