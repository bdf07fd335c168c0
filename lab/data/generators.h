#ifndef SHARDPLAN_LAB_DATA_GENERATORS_H_
#define SHARDPLAN_LAB_DATA_GENERATORS_H_

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lab/data/table_pool.h"
#include "planner/domain/task.h"
#include "planner/domain/topology.h"

namespace shardplan {

// The reference's sample generators (NeuroShard appendix B, algorithms 3-5; the reference code's
// compute_bench.py, comm_bench.py and tools/gen_tasks.py; docs/table-pool.md). Every generator
// draws sample `index` of a collection seeded by `seed` from SampleRng(seed, index)
// (base/seeded_rng.h) and from nothing else, so collections resume sample-exactly.
// Memory is counted as the reference does: rows x dim x 4 bytes (fp32 weights only).

inline constexpr int64_t kDefaultDeviceMemoryBytes = int64_t{4} << 30;  // the reference's 4 GB

// The dim grid: max_dim, max_dim/2, ... while divisible by 4 (128 -> 128 64 32 16 8 4).
// Empty if max_dim is not a positive multiple of 4.
std::vector<int32_t> DimGrid(int32_t max_dim = 128);

// One table of the pool at one dim.
struct AugmentedTable {
  int32_t pool_index = 0;
  int32_t dim = 0;
  friend bool operator==(const AugmentedTable&, const AugmentedTable&) = default;
};

// Table augmentation: every pool table at every dim, table-major (entry pool_index * dims.size()
// + k has dims[k]); 856 tables x 6 dims = 5136 entries, the compute model's training set.
std::vector<AugmentedTable> AugmentTables(int32_t num_pool_tables, std::span<const int32_t> dims);

// Weights bytes of a table of `rows` rows at `dim` columns, fp32.
int64_t Fp32TableBytes(int64_t rows, int32_t dim);

// The pool's table `t.pool_index` (which must exist) with dim `t.dim`.
Table PoolTableWithDim(const TablePool& pool, const AugmentedTable& t);

// --- Compute data: random table combinations (algorithm 3) ---------------------------------
struct CombinationOptions {
  int32_t max_tables = 15;  // a combination has 1..max_tables tables
  int64_t device_memory_bytes = kDefaultDeviceMemoryBytes;
  std::vector<int32_t> dims = DimGrid(128);
  int64_t max_attempts = int64_t{1} << 32;  // resampling bound before giving up
};

// size = uniform in [1, max_tables], drawn once; then `size` entries of the augmented set drawn
// uniformly with replacement, redrawn (the size kept) until their total memory is <= the device
// cap, as compute_bench.py does. So the size is uniform whatever the cap rejects.
// RESOURCE_EXHAUSTED after max_attempts draws, INVALID_ARGUMENT for an empty pool or grid.
absl::StatusOr<std::vector<AugmentedTable>> GenerateTableCombination(
    const TablePool& pool, const CombinationOptions& options, uint64_t seed, uint64_t index);

// --- Comm data: random placements with start offsets (algorithm 4) --------------------------
struct PlacementOptions {
  int32_t num_devices = 4;
  // Tables per sample, inclusive; 0 takes DefaultTableCountRange(num_devices).
  int32_t min_tables = 0;
  int32_t max_tables = 0;
  std::vector<int32_t> dims = DimGrid(128);
  // When not empty, each sample first draws its max dim uniformly from this list and its
  // tables' dims from DimGrid(that max dim) instead of `dims`: comm data that covers tasks of
  // every max dim (Table 1's 4 to 128), whose per-device dim sums are up to 30x smaller than
  // the reference's max-dim-128 placements. Empty: the reference's draws, unchanged.
  std::vector<int32_t> max_dims;
  int32_t max_offset_ms = 20;  // the largest start-offset spread
};

// The reference's task sizes: [10, 59] for 4 devices, [20, 119] for 8; in general
// [max(1, 10 * N / 4), 15 * N - 1].
std::pair<int32_t, int32_t> DefaultTableCountRange(int32_t num_devices);

struct PlacementSample {
  double random_prob = 0.0;              // probability of a random device per table
  std::vector<int32_t> table_dims;       // descending, the placement order
  std::vector<int32_t> device_of_table;  // parallel to table_dims
  std::vector<int64_t> dim_sums;         // per device
  int32_t offset_spread_ms = 0;          // sleep_time_diff
  std::vector<double> start_offsets_ms;  // per device, min 0, max <= offset_spread_ms
};

// Places `dims_descending` in order: with probability `random_prob` a table goes to a uniformly
// random device, else to the device of least dim sum (lowest index on ties). random_prob 0 is
// the classic greedy (LPT) dim balancing. Returns the device of every table. num_devices >= 1.
std::vector<int32_t> PlaceDimsGreedyWithProbability(std::span<const int32_t> dims_descending,
                                                    int32_t num_devices, double random_prob,
                                                    std::mt19937_64& rng);

// T uniform in the table-count range, dims uniform over the grid (sorted descending),
// random_prob ~ U(0,1), placement as above; offset_spread ~ uniform in [1, max_offset_ms],
// offsets uniform in [0, offset_spread] per device, minus their minimum.
absl::StatusOr<PlacementSample> GeneratePlacement(const PlacementOptions& options, uint64_t seed,
                                                  uint64_t index);

// --- Tasks (gen_tasks.py, algorithm 5) -----------------------------------------------------
struct TaskGenOptions {
  int32_t num_devices = 4;
  int64_t device_memory_bytes = kDefaultDeviceMemoryBytes;
  // Cap on the task's total table memory; 0 takes num_devices x device cap - 1 GiB (the
  // reference's 15 GB for 4 devices of 4 GB).
  int64_t total_memory_bytes = 0;
  int32_t max_dim = 128;
  int32_t min_tables = 0;  // 0: DefaultTableCountRange(num_devices)
  int32_t max_tables = 0;
  int64_t batch_size = kDefaultBatchSize;
  int64_t max_attempts = int64_t{1} << 32;  // the reference loops forever
};

// T uniform in the range, drawn once per task; then T pool ids uniform with replacement and T
// dims uniform over DimGrid(max_dim), redrawn (T kept) until the total memory fits, as
// gen_tasks.py does. So T is uniform over the range whatever the cap rejects.
// RESOURCE_EXHAUSTED when no draw of T tables fits in max_attempts.
absl::StatusOr<std::vector<AugmentedTable>> GenerateTaskTables(const TablePool& pool,
                                                               const TaskGenOptions& options,
                                                               uint64_t seed, uint64_t index);

// The planner Task of those tables: table k of pool table p is named "t<k>_p<p>", the topology
// is num_devices devices of device_memory_bytes on one host, batch_size as given.
Task BuildTask(const TablePool& pool, std::span<const AugmentedTable> tables,
               const TaskGenOptions& options);

// GenerateTaskTables then BuildTask.
absl::StatusOr<Task> GenerateTask(const TablePool& pool, const TaskGenOptions& options,
                                  uint64_t seed, uint64_t index);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_DATA_GENERATORS_H_
