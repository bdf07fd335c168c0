#ifndef SHARDPLAN_PLANNER_DOMAIN_TABLE_H_
#define SHARDPLAN_PLANNER_DOMAIN_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/domain/access_profile.h"

namespace shardplan {

// Number of bins of the access histogram (see Table::access_bins).
inline constexpr int kNumAccessBins = 17;

// TorchRec's data types that have a whole size in bytes (torchrec/modules/embedding_configs.py,
// DATA_TYPE_NUM_BITS).
enum class ElementType { kFp32, kFp16, kInt8, kBf16, kUint8, kNfp8 };

// Bytes per stored element.
int ElementBytes(ElementType type);

// How a table is cut into shards (what each kind serves and causes:
// planner/domain/sharding_semantics.h).
enum class ShardingType { kTableWise, kColumnWise, kRowWise, kDataParallel, kTableRowWise };

// How a table's lookups reach the model. kSum: one pooled row of `dim` per sample and feature
// (partial sums reduce in flight). kSequence: every looked-up row is kept, B x L x D outputs
// (TorchRec's EmbeddingCollection); they cannot be reduced in flight, so they travel whole.
enum class Pooling { kSum, kSequence };

// The proto enum names ("TABLE_WISE", "FP32", ...), for messages and the wire formats.
const char* ShardingTypeName(ShardingType type);
const char* ElementTypeName(ElementType type);
const char* PoolingName(Pooling pooling);

// One embedding table (docs/design.md section 2).
struct Table {
  std::string name;
  int64_t rows = 0;             // hash size
  int32_t dim = 0;              // embedding dimension
  double pooling_factor = 0.0;  // mean lookups per sample
  // Empty, or kNumAccessBins fractions of distinct accessed rows by access count:
  // bin j (0..15) holds counts in (2^(j-1), 2^j] ((0,1] for j = 0), bin 16 counts > 32768.
  std::vector<double> access_bins;
  ElementType element_type = ElementType::kFp32;
  // Constraints: empty means any sharding type; a pinned table goes to that device only.
  std::vector<ShardingType> allowed_sharding_types;
  std::optional<int32_t> pinned_device;
  // Per-row access profile (planner/domain/access_profile.h); empty: the histogram's staircase.
  AccessProfile access_profile;
  Pooling pooling = Pooling::kSum;

  bool Allows(ShardingType type) const;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TABLE_H_
