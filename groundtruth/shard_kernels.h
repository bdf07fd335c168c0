#ifndef SHARDPLAN_GROUNDTRUTH_SHARD_KERNELS_H_
#define SHARDPLAN_GROUNDTRUTH_SHARD_KERNELS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "planner/domain/sharding_semantics.h"
#include "planner/domain/table.h"

namespace shardplan {

// One fused embedding-bag forward + backward that a device runs: the tables its kernel sees
// (HardwareBackend::MeasureCompute's input) and the batch it serves.
struct KernelCall {
  std::vector<Table> tables;
  int64_t batch_size = 0;
};

// What a device's shards run on ground truth, for a global batch of `batch_size`: one fused call
// per sharding family, as TorchRec runs one lookup module per sharding type, in this order:
//  - TABLE_WISE and COLUMN_WISE shards together (the reference fuses every table a device
//    holds), each its table with dim = its columns, at the global batch; also an empty call for
//    a device without shards, so that such devices are measured exactly as before row-level
//    shards existed;
//  - ROW_WISE shards, then TABLE_ROW_WISE shards: each the block of rows it holds (dim = its
//    columns, the table's histogram, pooling factor scaled by rows / table rows), at the global
//    batch, whose partial sums it produces. Ids are hashed, so a contiguous block of rows holds
//    each access class in proportion to its rows and serves that share of the lookups (the
//    access model then gives the block that share of the distinct rows too). Empty blocks serve
//    nothing and are left out;
//  - DATA_PARALLEL replicas: the whole table at its device's share of the batch, batch / replicas
//    rounded to the nearest sample (one call per replica count). The update of the full replica
//    after its all-reduce is the collective's (HardwareBackend::MeasureCollectives).
// Families without shards make no call.
std::vector<KernelCall> DeviceKernelCalls(std::span<const ShardView> shards, int64_t batch_size);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SHARD_KERNELS_H_
