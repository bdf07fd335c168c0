#include "lab/data/generators.h"

#include <algorithm>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"

namespace shardplan {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

absl::Status CheckDims(std::span<const int32_t> dims) {
  if (dims.empty()) return absl::InvalidArgumentError("dims: the dim grid is empty");
  for (int32_t d : dims) {
    if (d <= 0) return absl::InvalidArgumentError(absl::StrCat("dims: ", d, " is not positive"));
  }
  return absl::OkStatus();
}

absl::Status CheckPoolAndDims(const TablePool& pool, std::span<const int32_t> dims) {
  if (pool.tables.empty()) return absl::InvalidArgumentError("table pool: has no tables");
  return CheckDims(dims);
}

absl::StatusOr<std::pair<int32_t, int32_t>> ResolveTableCount(int32_t num_devices, int32_t lo,
                                                              int32_t hi) {
  if (num_devices < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_devices: ", num_devices, " < 1"));
  }
  if (lo == 0 && hi == 0) return DefaultTableCountRange(num_devices);
  if (lo < 1 || hi < lo) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_tables/max_tables: [", lo, ", ", hi, "] is not a range of >= 1"));
  }
  return std::make_pair(lo, hi);
}

// The reference's resampling loop (gen_tasks.py's and compute_bench.py's gen_task): `count`
// tables drawn by `draw_one` until their memory sum is <= `cap` bytes, the count kept. A draw is
// abandoned as soon as its running sum passes the cap: the accepted draws are exactly those of
// the reference's loop (every tuple of `count` tables is equally likely, and acceptance depends
// only on the whole tuple), but a rejection costs a few tables instead of `count`. The reference
// loops forever; max_attempts bounds it.
absl::StatusOr<std::vector<AugmentedTable>> DrawUntilFits(
    const TablePool& pool, int64_t cap, int64_t count, int64_t max_attempts,
    const std::function<AugmentedTable()>& draw_one) {
  std::vector<AugmentedTable> tables;
  tables.reserve(count);
  for (int64_t attempt = 0; attempt < max_attempts; ++attempt) {
    tables.clear();
    int64_t total = 0;
    while (static_cast<int64_t>(tables.size()) < count && total <= cap) {
      tables.push_back(draw_one());
      total += Fp32TableBytes(pool.tables[tables.back().pool_index].rows, tables.back().dim);
    }
    if (total <= cap) return tables;
  }
  return absl::ResourceExhaustedError(absl::StrCat("no draw of ", count, " tables fit in ", cap,
                                                   " bytes after ", max_attempts, " attempts"));
}

}  // namespace

std::vector<int32_t> DimGrid(int32_t max_dim) {
  std::vector<int32_t> dims;
  for (int32_t d = max_dim; d > 0 && d % 4 == 0; d /= 2) dims.push_back(d);
  return dims;
}

std::vector<AugmentedTable> AugmentTables(int32_t num_pool_tables, std::span<const int32_t> dims) {
  std::vector<AugmentedTable> out;
  out.reserve(static_cast<size_t>(num_pool_tables) * dims.size());
  for (int32_t p = 0; p < num_pool_tables; ++p) {
    for (int32_t d : dims) out.push_back({p, d});
  }
  return out;
}

int64_t Fp32TableBytes(int64_t rows, int32_t dim) { return rows * dim * 4; }

Table PoolTableWithDim(const TablePool& pool, const AugmentedTable& t) {
  Table table = pool.tables[t.pool_index];
  table.dim = t.dim;
  return table;
}

absl::StatusOr<std::vector<AugmentedTable>> GenerateTableCombination(
    const TablePool& pool, const CombinationOptions& options, uint64_t seed, uint64_t index) {
  if (absl::Status s = CheckPoolAndDims(pool, options.dims); !s.ok()) return s;
  if (options.max_tables < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_tables: ", options.max_tables, " < 1"));
  }
  std::mt19937_64 rng = SampleRng(seed, index);
  const int64_t num_augmented =
      static_cast<int64_t>(pool.tables.size()) * static_cast<int64_t>(options.dims.size());
  const int64_t num_dims = static_cast<int64_t>(options.dims.size());
  // The size is drawn once; only the indices are redrawn until they fit (compute_bench.py's
  // gen_task), so every size keeps its 1/max_tables share of the samples.
  const int64_t size = UniformInt(rng, 1, options.max_tables);
  return DrawUntilFits(pool, options.device_memory_bytes, size, options.max_attempts, [&] {
    const int64_t a = UniformInt(rng, 0, num_augmented - 1);  // an augmented-set index
    return AugmentedTable{static_cast<int32_t>(a / num_dims), options.dims[a % num_dims]};
  });
}

std::pair<int32_t, int32_t> DefaultTableCountRange(int32_t num_devices) {
  return {std::max(1, 10 * num_devices / 4), 15 * num_devices - 1};
}

std::vector<int32_t> PlaceDimsGreedyWithProbability(std::span<const int32_t> dims_descending,
                                                    int32_t num_devices, double random_prob,
                                                    std::mt19937_64& rng) {
  std::vector<int64_t> sums(num_devices, 0);
  std::vector<int32_t> device_of(dims_descending.size());
  for (size_t t = 0; t < dims_descending.size(); ++t) {
    // The coin comes first for every table, as in the reference's random_dim_greedy.
    const bool random = Uniform01(rng) < random_prob;
    int32_t device;
    if (random) {
      device = static_cast<int32_t>(UniformInt(rng, 0, num_devices - 1));
    } else {
      device = static_cast<int32_t>(std::min_element(sums.begin(), sums.end()) - sums.begin());
    }
    device_of[t] = device;
    sums[device] += dims_descending[t];
  }
  return device_of;
}

absl::StatusOr<PlacementSample> GeneratePlacement(const PlacementOptions& options, uint64_t seed,
                                                  uint64_t index) {
  auto range = ResolveTableCount(options.num_devices, options.min_tables, options.max_tables);
  if (!range.ok()) return range.status();
  if (absl::Status s = CheckDims(options.dims); !s.ok()) return s;
  if (options.max_offset_ms < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_offset_ms: ", options.max_offset_ms, " < 1"));
  }
  for (int32_t d : options.max_dims) {
    if (DimGrid(d).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_dims: ", d, " has no dim grid (a positive multiple of 4)"));
    }
  }
  std::mt19937_64 rng = SampleRng(seed, index);
  PlacementSample sample;
  const int64_t num_tables = UniformInt(rng, range->first, range->second);
  std::vector<int32_t> sample_grid;
  if (!options.max_dims.empty()) {
    sample_grid = DimGrid(
        options.max_dims[UniformInt(rng, 0, static_cast<int64_t>(options.max_dims.size()) - 1)]);
  }
  const std::vector<int32_t>& dims = options.max_dims.empty() ? options.dims : sample_grid;
  for (int64_t t = 0; t < num_tables; ++t) {
    sample.table_dims.push_back(dims[UniformInt(rng, 0, static_cast<int64_t>(dims.size()) - 1)]);
  }
  std::sort(sample.table_dims.begin(), sample.table_dims.end(), std::greater<>());
  sample.random_prob = Uniform01(rng);
  sample.device_of_table = PlaceDimsGreedyWithProbability(sample.table_dims, options.num_devices,
                                                          sample.random_prob, rng);
  sample.dim_sums.assign(options.num_devices, 0);
  for (size_t t = 0; t < sample.table_dims.size(); ++t) {
    sample.dim_sums[sample.device_of_table[t]] += sample.table_dims[t];
  }
  sample.offset_spread_ms = static_cast<int32_t>(UniformInt(rng, 1, options.max_offset_ms));
  std::vector<int64_t> offsets(options.num_devices);
  for (int64_t& o : offsets) o = UniformInt(rng, 0, sample.offset_spread_ms);
  const int64_t min_offset = *std::min_element(offsets.begin(), offsets.end());
  for (int64_t o : offsets) sample.start_offsets_ms.push_back(static_cast<double>(o - min_offset));
  return sample;
}

absl::StatusOr<std::vector<AugmentedTable>> GenerateTaskTables(const TablePool& pool,
                                                               const TaskGenOptions& options,
                                                               uint64_t seed, uint64_t index) {
  const std::vector<int32_t> dims = DimGrid(options.max_dim);
  if (dims.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_dim: ", options.max_dim, " is not a positive multiple of 4"));
  }
  if (absl::Status s = CheckPoolAndDims(pool, dims); !s.ok()) return s;
  auto range = ResolveTableCount(options.num_devices, options.min_tables, options.max_tables);
  if (!range.ok()) return range.status();
  const int64_t cap = options.total_memory_bytes > 0
                          ? options.total_memory_bytes
                          : options.num_devices * options.device_memory_bytes - kGiB;
  std::mt19937_64 rng = SampleRng(seed, index);
  // T is drawn once per task; only the ids and dims are redrawn until they fit (gen_tasks.py's
  // gen_task), so T stays uniform over the range however often the memory cap rejects a draw.
  const int64_t num_tables = UniformInt(rng, range->first, range->second);
  const int64_t pool_size = static_cast<int64_t>(pool.tables.size());
  const int64_t num_dims = static_cast<int64_t>(dims.size());
  return DrawUntilFits(pool, cap, num_tables, options.max_attempts, [&] {
    const auto pool_index = static_cast<int32_t>(UniformInt(rng, 0, pool_size - 1));
    return AugmentedTable{pool_index, dims[UniformInt(rng, 0, num_dims - 1)]};
  });
}

Task BuildTask(const TablePool& pool, std::span<const AugmentedTable> tables,
               const TaskGenOptions& options) {
  Task task;
  for (size_t k = 0; k < tables.size(); ++k) {
    Table table = PoolTableWithDim(pool, tables[k]);
    table.name = absl::StrCat("t", k, "_p", tables[k].pool_index);
    task.tables.push_back(std::move(table));
  }
  task.topology.memory_bytes.assign(options.num_devices, options.device_memory_bytes);
  task.batch_size = options.batch_size;
  return task;
}

absl::StatusOr<Task> GenerateTask(const TablePool& pool, const TaskGenOptions& options,
                                  uint64_t seed, uint64_t index) {
  absl::StatusOr<std::vector<AugmentedTable>> tables =
      GenerateTaskTables(pool, options, seed, index);
  if (!tables.ok()) return tables.status();
  return BuildTask(pool, *tables, options);
}

}  // namespace shardplan
