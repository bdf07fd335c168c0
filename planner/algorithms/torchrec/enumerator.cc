#include "planner/algorithms/torchrec/enumerator.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/domain/memory.h"

namespace shardplan::torchrec {
namespace {

ShardingOption MakeOption(const Task& task, int t, ShardingType type, int32_t num_shards,
                          const AnalyticParams& params) {
  const Table& table = task.tables[t];
  const int32_t width = table.dim / num_shards;
  ShardingOption option{.table = t, .sharding_type = type, .shards = {}};
  option.shards.reserve(num_shards);
  for (int32_t j = 0; j < num_shards; ++j) {
    option.shards.push_back(
        ShardOption{.column_offset = j * width,
                    .columns = width,
                    .perf = EstimateShardPerf(params, table, width, task.batch_size, task.topology),
                    .bytes = ShardMemoryBytes(table, table.rows, width, task.memory)});
  }
  return option;
}

}  // namespace

std::vector<int32_t> ColumnWiseShardCounts(int32_t dim, int32_t min_partition) {
  std::vector<int32_t> counts;
  for (int32_t count = 2; count <= dim; count *= 2) {
    if (dim % count != 0) break;
    const int32_t width = dim / count;
    if (width % 4 != 0 || width < min_partition) break;
    counts.push_back(count);
  }
  return counts;
}

absl::StatusOr<SearchSpace> Enumerate(const Task& task, int32_t min_partition,
                                      const AnalyticParams& params) {
  SearchSpace space;
  SHARDPLAN_ASSIGN_OR_RETURN(space.units, PlacementUnits(task));
  space.options_of_table.resize(task.tables.size());
  for (const PlacementUnit& unit : space.units) {
    const bool whole_on_one_device = unit.tables.size() > 1 || unit.pinned_device.has_value();
    for (int t : unit.tables) {
      const Table& table = task.tables[t];
      const bool table_wise = table.Allows(ShardingType::kTableWise);
      const bool column_wise = table.Allows(ShardingType::kColumnWise);
      if (!table_wise && !column_wise) {
        return absl::FailedPreconditionError(
            absl::StrCat("task is infeasible for ", kAlgorithmName, ": tables[", t,
                         "].allowed_sharding_types of table \"", table.name,
                         "\" allows neither TABLE_WISE nor COLUMN_WISE, the only kinds ",
                         kAlgorithmName, " produces"));
      }
      std::vector<ShardingOption>& options = space.options_of_table[t];
      options.push_back(MakeOption(
          task, t, table_wise ? ShardingType::kTableWise : ShardingType::kColumnWise, 1, params));
      if (!column_wise || whole_on_one_device) continue;
      for (int32_t count : ColumnWiseShardCounts(table.dim, min_partition)) {
        options.push_back(MakeOption(task, t, ShardingType::kColumnWise, count, params));
      }
    }
  }
  return space;
}

}  // namespace shardplan::torchrec
