#ifndef SHARDPLAN_LAB_DATA_TABLE_POOL_H_
#define SHARDPLAN_LAB_DATA_TABLE_POOL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/table.h"

namespace shardplan {

// A pool of table statistics that tasks and cost data draw from: rows, pooling factor and the
// 17 access bins per table (no dim: the generators assign dims). The shipped pool is
// data/table_pool/dlrm_856.json; `shardplan tables profile` builds one from a user's lookups.
//
// File format (JSON): {"format_version": 1, "source": "...", "tables": [{"name": "t0",
// "rows": 100, "pooling_factor": 1.5, "access_bins": [17 fractions]}, ...]}
struct TablePool {
  std::string source;         // provenance, one line
  std::vector<Table> tables;  // dim 0 until a generator sets it
};

absl::StatusOr<TablePool> LoadTablePool(const std::string& path);
// The file's bytes, as LoadTablePool reads them (for callers that also hash them).
absl::StatusOr<std::string> ReadTablePoolText(const std::string& path);
// Written atomically (temporary file, fsync, rename).
absl::Status SaveTablePool(const TablePool& pool, const std::string& path);

// The same format in memory; `path` only labels errors ("<path>: tables[3].rows: ...").
absl::StatusOr<TablePool> TablePoolFromJsonText(const std::string& text, const std::string& path);
std::string TablePoolToJsonText(const TablePool& pool);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_DATA_TABLE_POOL_H_
