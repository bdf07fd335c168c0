#ifndef SHARDPLAN_PLANNER_DOMAIN_ROW_SHARD_MAP_H_
#define SHARDPLAN_PLANNER_DOMAIN_ROW_SHARD_MAP_H_

// A plan that places rows one by one (ALIS, docs/alis.md): for every row of every table, the
// shard that holds it. One 16-bit shard id per row, so 10M rows take 20 MB, where the same map
// written as shard lists takes ~105 MiB (issue 30).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

using ShardId = uint16_t;
// A row no plan has placed yet (a table grew, a new id arrived): ALIS's Algorithm 3 gives it a
// seeded random shard the first time a window requests it.
inline constexpr ShardId kUnassignedShard = 0xFFFF;
inline constexpr int kMaxRowMapShards = 0xFFFF;

// A row of one table, packed into one 64-bit key: the table in the top 20 bits, the row in the
// low 44 (up to 17.6e12 rows a table, 1M tables). Keys order by (table, row).
inline constexpr int kRowKeyRowBits = 44;
inline constexpr int64_t kMaxRowKeyRows = int64_t{1} << kRowKeyRowBits;
inline constexpr int64_t kMaxRowKeyTables = int64_t{1} << (64 - kRowKeyRowBits);
inline uint64_t PackRowKey(int64_t table, int64_t row) {
  return (static_cast<uint64_t>(table) << kRowKeyRowBits) | static_cast<uint64_t>(row);
}
inline int64_t TableOfKey(uint64_t key) { return static_cast<int64_t>(key >> kRowKeyRowBits); }
inline int64_t RowOfKey(uint64_t key) {
  return static_cast<int64_t>(key & (static_cast<uint64_t>(kMaxRowKeyRows) - 1));
}

// A table as the map sees it: how many rows and what one row weighs (dim x element bytes).
struct RowSpaceTable {
  std::string name;
  int64_t rows = 0;
  int64_t row_bytes = 0;
};

class RowShardMap {
 public:
  RowShardMap() = default;
  // Every row of every table on `fill` (kUnassignedShard: nowhere yet). INVALID_ARGUMENT naming
  // the field: shards outside [1, 65535), no table, a table without a name, rows outside
  // [1, 2^44), row_bytes < 1, more than 2^20 tables.
  static absl::StatusOr<RowShardMap> Create(std::vector<RowSpaceTable> tables, int shards,
                                            ShardId fill = kUnassignedShard);

  int shards() const { return shards_; }
  const std::vector<RowSpaceTable>& tables() const { return tables_; }
  int64_t total_rows() const { return total_rows_; }
  // Whether `key` names a row of a table of this map.
  bool Contains(uint64_t key) const;
  ShardId ShardOf(uint64_t key) const { return shard_of_[TableOfKey(key)][RowOfKey(key)]; }
  void Assign(uint64_t key, ShardId shard) { shard_of_[TableOfKey(key)][RowOfKey(key)] = shard; }
  int64_t RowBytesOf(uint64_t key) const { return tables_[TableOfKey(key)].row_bytes; }
  const std::vector<ShardId>& TableShards(int table) const { return shard_of_[table]; }
  std::vector<ShardId>& MutableTableShards(int table) { return shard_of_[table]; }
  // Same tables, shards and placement.
  bool SamePlacementAs(const RowShardMap& other) const;
  // What the map itself occupies in memory (the shard ids), bytes.
  int64_t MemoryBytes() const { return total_rows_ * static_cast<int64_t>(sizeof(ShardId)); }

 private:
  int shards_ = 0;
  int64_t total_rows_ = 0;
  std::vector<RowSpaceTable> tables_;
  std::vector<std::vector<ShardId>> shard_of_;  // [table][row]
};

// What a map places where: rows and bytes per shard, and the rows placed nowhere yet.
struct RowShardMapSummary {
  std::vector<int64_t> rows;   // per shard
  std::vector<int64_t> bytes;  // per shard
  int64_t unassigned_rows = 0;
  // The largest shard over the mean shard, by rows (1 = balanced; 0 for an empty map).
  double row_imbalance = 0.0;
};
RowShardMapSummary SummarizeRowShardMap(const RowShardMap& map);

// One row that changes shard between two maps.
struct RowMove {
  uint64_t key = 0;
  ShardId from = 0;
  ShardId to = 0;
};

// What it takes to go from one map to another: the rows that change shard (a row placed for the
// first time is not a move: nothing leaves a device), their bytes, and the rows per (from, to).
struct RowShardMapDelta {
  int64_t rows_moved = 0;
  int64_t bytes_moved = 0;
  int64_t rows_placed = 0;                    // unassigned before, placed after
  std::vector<std::vector<int64_t>> from_to;  // [from][to] rows
  std::vector<RowMove> moves;                 // in key order; only when asked for
};

// INVALID_ARGUMENT when the maps differ in tables (names, rows, row bytes) or shard count, naming
// which; `list_moves` also lists every move (memory: 12 bytes a moved row).
absl::StatusOr<RowShardMapDelta> DiffRowShardMaps(const RowShardMap& from, const RowShardMap& to,
                                                  bool list_moves);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_ROW_SHARD_MAP_H_
