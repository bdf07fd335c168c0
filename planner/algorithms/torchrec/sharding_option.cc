#include "planner/algorithms/torchrec/sharding_option.h"

#include <algorithm>

#include "planner/domain/memory.h"

namespace shardplan::torchrec {

PartitionBy ShardingOption::partition_by() const {
  switch (sharding_type) {
    case ShardingType::kRowWise:
    case ShardingType::kDataParallel:
      return PartitionBy::kUniform;
    case ShardingType::kTableRowWise:
      return PartitionBy::kHost;
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      break;
  }
  return PartitionBy::kDevice;
}

double ShardingOption::PerfSum() const {
  double sum = 0.0;
  for (const ShardOption& shard : shards) sum += shard.perf.total();
  return sum;
}

double ShardingOption::PerfMax() const {
  double max = 0.0;
  for (const ShardOption& shard : shards) max = std::max(max, shard.perf.total());
  return max;
}

int64_t ShardingOption::BytesSum() const {
  int64_t sum = 0;
  for (const ShardOption& shard : shards) sum = AddBytes(sum, shard.bytes);
  return sum;
}

int64_t ShardingOption::BytesMax() const {
  int64_t max = 0;
  for (const ShardOption& shard : shards) max = std::max(max, shard.bytes);
  return max;
}

}  // namespace shardplan::torchrec
