#include "lab/collection/sample_generators.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "base/seeded_rng.h"
#include "base/status_macros.h"
#include "lab/data/generators.h"
#include "planner/domain/sharding_semantics.h"

namespace shardplan {
namespace {

// The types' own draws come from a stream apart from the combination's (same seed and index).
constexpr uint64_t kTypeStream = 0x5ba2d1e7c3f40a91ull;

constexpr int32_t kWorldSizes[] = {2, 4, 8, 16, 32, 64, 128};

int32_t Pick(std::mt19937_64& rng, std::span<const int32_t> values) {
  return values[UniformBelow(rng, values.size())];
}

// Rows of block `k` of `rows` split evenly into `n` blocks (the first rows % n one row larger).
int64_t EvenBlock(int64_t rows, int32_t n, int32_t k) { return rows / n + (k < rows % n ? 1 : 0); }

}  // namespace

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

SampleGenerator ShardComputeSamples(const TablePool& pool, uint64_t seed,
                                    std::optional<ShardingType> only, int32_t max_tables,
                                    bool one_call) {
  CombinationOptions options;
  if (max_tables > 0) options.max_tables = max_tables;
  return [&pool, seed, only, options, one_call](int64_t id, CostRecord& record) -> absl::Status {
    SHARDPLAN_ASSIGN_OR_RETURN(
        const std::vector<AugmentedTable> tables,
        GenerateTableCombination(pool, options, seed, static_cast<uint64_t>(id)));
    std::mt19937_64 rng = SampleRng(seed ^ kTypeStream, static_cast<uint64_t>(id));
    static constexpr int32_t kHostSizes[] = {2, 4, 8};
    // One world per device, as in a plan: its row shards span it and its replicas are one per
    // device of it, so the simulator fuses every replica of the device into one kernel call (one
    // call per replica count); a count drawn per shard made replicas that never fuse.
    const int32_t world = Pick(rng, kWorldSizes);
    // A table-row-wise table spans one host of the world: 2, 4 or 8 devices, at most the world.
    const std::span<const int32_t> host_sizes(kHostSizes, world >= 8 ? 3 : world >= 4 ? 2 : 1);
    // One kernel call: every shard of the record draws the same type (so the same call).
    const double call_u = one_call ? Uniform01(rng) : 0.0;
    for (const AugmentedTable& table : tables) {
      CostShard shard{.table = table.pool_index, .dim = table.dim};
      const int64_t rows = pool.tables[static_cast<size_t>(table.pool_index)].rows;
      double u = one_call ? call_u : Uniform01(rng);
      if (only.has_value()) {  // the same draws, the type's part of [0, 1) forced
        switch (*only) {
          case ShardingType::kTableWise:
          case ShardingType::kColumnWise:
            u = 0.0;
            break;
          case ShardingType::kRowWise:
            u = 0.30 + 0.25 * u;
            break;
          case ShardingType::kTableRowWise:
            u = 0.55 + 0.20 * u;
            break;
          case ShardingType::kDataParallel:
            u = 0.75 + 0.25 * u;
            break;
        }
      }
      if (u < 0.30) {
        shard.type = only.value_or(ShardingType::kTableWise);
        shard.rows = rows;
      } else if (u < 0.75) {
        shard.type = u < 0.55 ? ShardingType::kRowWise : ShardingType::kTableRowWise;
        shard.group_size = shard.type == ShardingType::kRowWise ? world : Pick(rng, host_sizes);
        const int32_t k = static_cast<int32_t>(UniformBelow(rng, shard.group_size));
        shard.rows = EvenBlock(rows, shard.group_size, k);
      } else {
        shard.type = ShardingType::kDataParallel;
        shard.group_size = world;
        shard.rows = rows;
      }
      record.shards.push_back(shard);
    }
    return absl::OkStatus();
  };
}

SampleGenerator CollectiveSamples(uint64_t seed, int32_t num_devices, int32_t devices_per_host,
                                  bool spread_hosts) {
  return [seed, num_devices, devices_per_host, spread_hosts](int64_t id,
                                                             CostRecord& record) -> absl::Status {
    if (num_devices < 1 || devices_per_host < 1 || devices_per_host > num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat(num_devices, " devices in hosts of ", devices_per_host, " is not a layout"));
    }
    std::mt19937_64 rng = SampleRng(seed, static_cast<uint64_t>(id));
    const int32_t world = num_devices;
    Topology topology;
    topology.memory_bytes.assign(static_cast<size_t>(world), int64_t{1} << 36);
    topology.devices_per_host = devices_per_host;
    record.num_devices = world;
    record.devices_per_host = devices_per_host;

    static constexpr ShardingType kTypes[] = {ShardingType::kRowWise, ShardingType::kTableRowWise,
                                              ShardingType::kDataParallel};
    const ShardingType type = kTypes[UniformBelow(rng, 3)];
    const int64_t batch = int64_t{1} << UniformInt(rng, 10, 17);  // 1024 to 131072
    const int32_t num_tables = static_cast<int32_t>(UniformInt(rng, 1, 8));
    const std::vector<int32_t> dims = DimGrid(128);
    // TABLE_ROW_WISE tables of one sample share a host and shard count, so that their calls
    // fuse as a planner's would.
    const int32_t host = static_cast<int32_t>(UniformBelow(rng, topology.num_hosts()));
    const int32_t local = topology.local_world_size();
    const int32_t twrw_shards = static_cast<int32_t>(UniformInt(rng, 1, local));
    std::vector<Table> tables(static_cast<size_t>(num_tables));
    std::vector<CollectiveDemand> demands;
    for (int32_t t = 0; t < num_tables; ++t) {
      Table& table = tables[static_cast<size_t>(t)];
      table.name = "t";
      table.dim = Pick(rng, dims);
      // Replicated tables are small (DP is chosen for them); row-sharded ones any size.
      const double log_rows = type == ShardingType::kDataParallel ? 2.0 + 4.0 * Uniform01(rng)
                                                                  : 3.0 + 4.0 * Uniform01(rng);
      table.rows = std::max<int64_t>(1, static_cast<int64_t>(std::pow(10.0, log_rows)));
      table.pooling_factor = 1.0;
      TableSharding sharding;
      sharding.table = "t";
      sharding.sharding_type = type;
      if (type == ShardingType::kTableRowWise) {
        const int32_t table_host =
            spread_hosts ? static_cast<int32_t>(UniformBelow(rng, topology.num_hosts())) : host;
        for (int32_t k = 0; k < twrw_shards; ++k) {
          sharding.shards.push_back(
              {table_host * local + k, 0, EvenBlock(table.rows, twrw_shards, k), 0, table.dim});
        }
      } else {
        for (int32_t d = 0; d < world; ++d) {
          const int64_t rows =
              type == ShardingType::kRowWise ? EvenBlock(table.rows, world, d) : table.rows;
          sharding.shards.push_back({d, 0, rows, 0, table.dim});
        }
      }
      for (CollectiveDemand& demand : TableCollectives(table, sharding, topology, batch)) {
        demands.push_back(std::move(demand));
      }
    }
    // The calls, in order of first appearance; one drawn.
    std::map<std::tuple<Collective, Pass, std::vector<int32_t>>, int> call_of;
    std::vector<int> call(demands.size());
    for (size_t i = 0; i < demands.size(); ++i) {
      std::vector<int32_t> peers = demands[i].peers;
      std::sort(peers.begin(), peers.end());
      call[i] = call_of
                    .emplace(std::make_tuple(demands[i].collective, demands[i].pass, peers),
                             static_cast<int>(call_of.size()))
                    .first->second;
    }
    if (call_of.empty()) {
      return absl::InternalError(absl::StrCat("sample ", id, ": the tables cause no collective"));
    }
    const int chosen = static_cast<int>(UniformBelow(rng, call_of.size()));
    for (size_t i = 0; i < demands.size(); ++i) {
      if (call[i] != chosen) continue;
      const CollectiveDemand& d = demands[i];
      record.demands.push_back(CostDemand{.collective = d.collective,
                                          .pass = d.pass,
                                          .sharding = d.sharding,
                                          .bytes = d.bytes,
                                          .devices = d.devices,
                                          .peers = d.peers});
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
