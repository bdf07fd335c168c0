#ifndef SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_
#define SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_

#include <cstdint>
#include <vector>

#include "lab/collection/collector.h"
#include "lab/data/table_pool.h"

namespace shardplan {

// The reference's inputs of cost data, sample i drawn from (seed, i) (docs/cost-data.md):
// a random table combination of `pool` (compute; 1..15 tables under 4 GiB), or a random
// placement on `num_devices` devices with start offsets (comm). `pool` must outlive the result.
SampleGenerator ComputeSamples(const TablePool& pool, uint64_t seed);
SampleGenerator CommSamples(int32_t num_devices, uint64_t seed, std::vector<int32_t> max_dims = {});

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_
