#include "planner/algorithms/flexshard/flexshard_layout.h"

#include <vector>

#include "planner/search/row_blocks.h"

namespace shardplan::flexshard {

const char* TierKindName(TierKind kind) {
  switch (kind) {
    case TierKind::kDataParallel:
      return "DP";
    case TierKind::kFlex:
      return "Flex";
    case TierKind::kRowWise:
      return "RW";
  }
  return "?";
}

TableSharding FlexShardSharding(const Table& table, const Topology& topology,
                                const TierBounds& bounds) {
  TableSharding sharding;
  sharding.table = table.name;
  sharding.sharding_type = ShardingType::kRowWise;
  sharding.row_order = bounds.flex_end > 0 ? RowOrder::kFrequencyRank : RowOrder::kNatural;
  // Each tier holds exactly its ranks, its ids in hashed order within it, as FlexShard keeps
  // them: each Flex slice and RW block then serves an even part of its tier's lookups.
  if (bounds.flex_end > 0) {
    for (int64_t bound : {bounds.dp_end, bounds.flex_end}) {
      const int64_t low = sharding.rank_bands.empty() ? 0 : sharding.rank_bands.back();
      if (bound > low && bound < table.rows) sharding.rank_bands.push_back(bound);
    }
  }
  const auto add = [&](int32_t device, int64_t row_offset, int64_t row_count) {
    sharding.shards.push_back(Shard{.device = device,
                                    .row_offset = row_offset,
                                    .row_count = row_count,
                                    .column_offset = 0,
                                    .column_count = table.dim});
  };
  const int devices = topology.num_devices();
  if (bounds.dp_end > 0) {
    for (int32_t d = 0; d < devices; ++d) add(d, 0, bounds.dp_end);
  }
  const int per_host = topology.local_world_size();
  const std::vector<RowBlock> slices = EvenRowBlocks(bounds.flex_end - bounds.dp_end, per_host);
  for (int w = 0; w < static_cast<int>(slices.size()); ++w) {
    if (slices[w].count <= 0) continue;
    for (int h = 0; h < topology.num_hosts(); ++h) {
      add(h * per_host + w, bounds.dp_end + slices[w].offset, slices[w].count);
    }
  }
  const std::vector<RowBlock> blocks =
      RowWiseBlocks(table.rows - bounds.flex_end, topology.memory_bytes);
  for (int32_t d = 0; d < static_cast<int32_t>(blocks.size()); ++d) {
    if (blocks[d].count > 0) add(d, bounds.flex_end + blocks[d].offset, blocks[d].count);
  }
  return sharding;
}

}  // namespace shardplan::flexshard
