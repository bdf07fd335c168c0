#include "planner/domain/row_shard_map.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace shardplan {

absl::StatusOr<RowShardMap> RowShardMap::Create(std::vector<RowSpaceTable> tables, int shards,
                                                ShardId fill) {
  if (shards < 1 || shards >= kMaxRowMapShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards: ", shards, " is outside [1, ", kMaxRowMapShards, ")"));
  }
  if (tables.empty()) return absl::InvalidArgumentError("tables: a row map needs a table");
  if (static_cast<int64_t>(tables.size()) > kMaxRowKeyTables) {
    return absl::InvalidArgumentError(
        absl::StrCat("tables: ", tables.size(), " tables, at most ", kMaxRowKeyTables));
  }
  if (fill != kUnassignedShard && fill >= shards) {
    return absl::InvalidArgumentError(absl::StrCat("fill: shard ", fill, " of ", shards));
  }
  RowShardMap map;
  map.shards_ = shards;
  for (size_t t = 0; t < tables.size(); ++t) {
    const RowSpaceTable& table = tables[t];
    const std::string field = absl::StrCat("tables[", t, "]");
    if (table.name.empty()) return absl::InvalidArgumentError(field + ".name: empty");
    if (table.rows < 1 || table.rows >= kMaxRowKeyRows) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".rows: ", table.rows, " is outside [1, 2^", kRowKeyRowBits, ")"));
    }
    if (table.row_bytes < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".row_bytes: ", table.row_bytes, " must be >= 1"));
    }
    map.total_rows_ += table.rows;
    map.shard_of_.emplace_back(static_cast<size_t>(table.rows), fill);
  }
  map.tables_ = std::move(tables);
  return map;
}

bool RowShardMap::Contains(uint64_t key) const {
  const int64_t table = TableOfKey(key);
  return table < static_cast<int64_t>(tables_.size()) && RowOfKey(key) < tables_[table].rows;
}

bool RowShardMap::SamePlacementAs(const RowShardMap& other) const {
  if (shards_ != other.shards_ || tables_.size() != other.tables_.size()) return false;
  for (size_t t = 0; t < tables_.size(); ++t) {
    if (tables_[t].name != other.tables_[t].name || tables_[t].rows != other.tables_[t].rows ||
        tables_[t].row_bytes != other.tables_[t].row_bytes) {
      return false;
    }
  }
  return shard_of_ == other.shard_of_;
}

RowShardMapSummary SummarizeRowShardMap(const RowShardMap& map) {
  RowShardMapSummary summary;
  summary.rows.assign(map.shards(), 0);
  summary.bytes.assign(map.shards(), 0);
  for (size_t t = 0; t < map.tables().size(); ++t) {
    const int64_t row_bytes = map.tables()[t].row_bytes;
    for (ShardId shard : map.TableShards(static_cast<int>(t))) {
      if (shard == kUnassignedShard) {
        ++summary.unassigned_rows;
        continue;
      }
      ++summary.rows[shard];
      summary.bytes[shard] += row_bytes;
    }
  }
  const int64_t placed = map.total_rows() - summary.unassigned_rows;
  if (placed > 0) {
    const double mean = static_cast<double>(placed) / map.shards();
    summary.row_imbalance =
        static_cast<double>(*std::max_element(summary.rows.begin(), summary.rows.end())) / mean;
  }
  return summary;
}

absl::StatusOr<RowShardMapDelta> DiffRowShardMaps(const RowShardMap& from, const RowShardMap& to,
                                                  bool list_moves) {
  if (from.shards() != to.shards()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards: ", from.shards(), " before, ", to.shards(), " after"));
  }
  if (from.tables().size() != to.tables().size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tables: ", from.tables().size(), " before, ", to.tables().size(), " after"));
  }
  RowShardMapDelta delta;
  delta.from_to.assign(from.shards(), std::vector<int64_t>(from.shards(), 0));
  for (size_t t = 0; t < from.tables().size(); ++t) {
    const RowSpaceTable& before = from.tables()[t];
    const RowSpaceTable& after = to.tables()[t];
    if (before.name != after.name || before.rows != after.rows ||
        before.row_bytes != after.row_bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", t, "]: \"", before.name, "\" (", before.rows, " rows of ",
                       before.row_bytes, " B) before, \"", after.name, "\" (", after.rows,
                       " rows of ", after.row_bytes, " B) after"));
    }
    const std::vector<ShardId>& old_shards = from.TableShards(static_cast<int>(t));
    const std::vector<ShardId>& new_shards = to.TableShards(static_cast<int>(t));
    for (int64_t row = 0; row < before.rows; ++row) {
      const ShardId a = old_shards[row];
      const ShardId b = new_shards[row];
      if (a == b || b == kUnassignedShard) continue;
      if (a == kUnassignedShard) {
        ++delta.rows_placed;
        continue;
      }
      ++delta.rows_moved;
      delta.bytes_moved += before.row_bytes;
      ++delta.from_to[a][b];
      if (list_moves) delta.moves.push_back({PackRowKey(static_cast<int64_t>(t), row), a, b});
    }
  }
  return delta;
}

}  // namespace shardplan
