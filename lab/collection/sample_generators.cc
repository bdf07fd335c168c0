#include "lab/collection/sample_generators.h"

#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "lab/data/generators.h"

namespace shardplan {

SampleGenerator ComputeSamples(const TablePool& pool, uint64_t seed) {
  return [&pool, seed](int64_t id, CostRecord& record) -> absl::Status {
    SHARDPLAN_ASSIGN_OR_RETURN(
        const std::vector<AugmentedTable> tables,
        GenerateTableCombination(pool, CombinationOptions(), seed, static_cast<uint64_t>(id)));
    for (const AugmentedTable& table : tables) {
      record.tables.emplace_back(table.pool_index, table.dim);
    }
    return absl::OkStatus();
  };
}

SampleGenerator CommSamples(int32_t num_devices, uint64_t seed, std::vector<int32_t> max_dims) {
  PlacementOptions placement;
  placement.num_devices = num_devices;
  placement.max_dims = std::move(max_dims);
  return [placement, seed](int64_t id, CostRecord& record) -> absl::Status {
    SHARDPLAN_ASSIGN_OR_RETURN(const PlacementSample sample,
                               GeneratePlacement(placement, seed, static_cast<uint64_t>(id)));
    record.dim_sums = sample.dim_sums;
    record.start_offsets_ms = sample.start_offsets_ms;
    return absl::OkStatus();
  };
}

}  // namespace shardplan
