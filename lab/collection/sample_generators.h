#ifndef SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_
#define SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "lab/collection/collector.h"
#include "lab/data/table_pool.h"

namespace shardplan {

// The reference's inputs of cost data, sample i drawn from (seed, i) (docs/cost-data.md):
// a random table combination of `pool` (compute; 1..15 tables under 4 GiB), or a random
// placement on `num_devices` devices with start offsets (comm). `pool` must outlive the result.
SampleGenerator ComputeSamples(const TablePool& pool, uint64_t seed);
SampleGenerator CommSamples(int32_t num_devices, uint64_t seed, std::vector<int32_t> max_dims = {});

// One device's shards of every sharding type (docs/cost-data.md, "Shards and collectives"): a
// random table combination of `pool` as ComputeSamples draws it, each table then given a type
// (TABLE_WISE 30%, ROW_WISE 25%, TABLE_ROW_WISE 20%, DATA_PARALLEL 25%), a group size (row
// shards: 2 to 128 for ROW_WISE, 2 to 8 for TABLE_ROW_WISE; replicas: 2 to 128) and, for a row
// shard, one block of the table's even split. With `only`, every shard is of that type (the
// held-out checks per type: docs/cost-models.md, "Held-out errors by sharding type"). `pool` must
// outlive the result.
// `max_tables` > 0 draws 1..max_tables shards per device instead of the combinations' 15: planners
// put many more on a device (TorchRec replicates a Criteo model's 16 small tables on every one).
// `one_call` draws one type per record instead of one per shard, so that a record's shards run
// in one kernel call (KernelCallKey): the data of per-kernel-call compute models.
SampleGenerator ShardComputeSamples(const TablePool& pool, uint64_t seed,
                                    std::optional<ShardingType> only = std::nullopt,
                                    int32_t max_tables = 0, bool one_call = false);

// One collective call of row-level or data-parallel shards on `num_devices` devices in hosts
// of `devices_per_host` (the simulator measures one layout per run): 1 to 8 tables of one type
// (ROW_WISE, TABLE_ROW_WISE or DATA_PARALLEL) with random columns (4 to 128), rows and batch,
// their demands (TableCollectives), and of their calls one drawn at random: its demands go into
// the record. TABLE_ROW_WISE tables share a shard count and, unless `spread_hosts`, one host;
// with it each draws its host, so that the cross-host all-to-all has senders on several hosts,
// as a plan that spreads such tables over the hosts makes.
SampleGenerator CollectiveSamples(uint64_t seed, int32_t num_devices, int32_t devices_per_host,
                                  bool spread_hosts = false);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_COLLECTION_SAMPLE_GENERATORS_H_
