#include "groundtruth/cpu/embedding_bag_kernel.h"

#include <algorithm>
#include <cstring>

namespace shardplan {
namespace {

// The dim loops below are contiguous and alias-free (__restrict), so the compiler vectorises
// them at -O2/-O3 without target-specific intrinsics.
inline void AddRow(float* __restrict out, const float* __restrict row, int32_t dim) {
  for (int32_t d = 0; d < dim; ++d) out[d] += row[d];
}

inline void SubtractScaled(float* __restrict row, const float* __restrict grad, float lr,
                           int32_t dim) {
  for (int32_t d = 0; d < dim; ++d) row[d] -= lr * grad[d];
}

}  // namespace

void EmbeddingBagForward(std::span<const EmbeddingTableView> tables, const FusedLookups& lookups,
                         float* output, int part, int num_parts) {
  const int64_t batch = lookups.batch_size;
  const int64_t total_bags = static_cast<int64_t>(tables.size()) * batch;
  const int64_t width = lookups.column_offsets.back();
  // Contiguous slices of the flattened (table, sample) bag list.
  const int64_t begin = total_bags * part / num_parts;
  const int64_t end = total_bags * (part + 1) / num_parts;
  for (int64_t bag = begin; bag < end; ++bag) {
    const int64_t t = bag / batch;
    const int64_t b = bag % batch;
    const EmbeddingTableView& table = tables[t];
    float* out = output + b * width + lookups.column_offsets[t];
    std::memset(out, 0, sizeof(float) * table.dim);
    for (int64_t i = lookups.offsets[bag]; i < lookups.offsets[bag + 1]; ++i) {
      AddRow(out, table.weights + lookups.indices[i] * table.dim, table.dim);
    }
  }
}

void EmbeddingBagBackwardSgd(std::span<const EmbeddingTableView> tables,
                             const FusedLookups& lookups, const float* grad_output,
                             float learning_rate, int part, int num_parts) {
  const int64_t batch = lookups.batch_size;
  const int64_t width = lookups.column_offsets.back();
  for (size_t t = 0; t < tables.size(); ++t) {
    const EmbeddingTableView& table = tables[t];
    const int64_t column = lookups.column_offsets[t];
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t bag = static_cast<int64_t>(t) * batch + b;
      const float* grad = grad_output + b * width + column;
      for (int64_t i = lookups.offsets[bag]; i < lookups.offsets[bag + 1]; ++i) {
        const int64_t row = lookups.indices[i];
        if (num_parts > 1 && row % num_parts != part) continue;
        SubtractScaled(table.weights + row * table.dim, grad, learning_rate, table.dim);
      }
    }
  }
}

}  // namespace shardplan
