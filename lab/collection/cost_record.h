#ifndef SHARDPLAN_LAB_COLLECTION_COST_RECORD_H_
#define SHARDPLAN_LAB_COLLECTION_COST_RECORD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan {

// One line of a cost-data file (JSONL; docs/cost-data.md). Records are compact: tables are
// (pool index, dim) pairs into the table pool named by `pool` (a path relative to the repository
// root, e.g. "data/table_pool/dlrm_856.json") with its SHA-256 in `pool_sha256`, so 100K-sample
// datasets stay small and a trainer rebuilds each table's 20 features from the pool.
//
// compute: {"id": 17, "kind": "compute", "backend": "sim", "hardware_profile": "sim-rtx2080ti",
//           "seed": 0, "batch_size": 65536, "pool": "...", "pool_sha256": "...",
//           "tables": [[812, 64], [3, 4]], "ms": 3.217, "time": "2026-11-21T09:00:00Z"}
// comm:    {"id": 17, "kind": "comm", ..., "num_devices": 4, "dim_sums": [...],
//           "start_offsets_ms": [...], "forward_ms": [...], "backward_ms": [...], "time": ...}
//           and "devices_per_host": 8 when the run chose the host layout (absent: the
//           backend's own machines, for the simulator hosts of its profile's devices_per_host)
// shards:   as compute, with "shards": [[812, 64, "ROW_WISE", 4, 1250], ...] instead of "tables":
//           (pool index, columns, sharding type, group size, rows held) of one device's shards
//           (docs/cost-data.md, "Shards and collectives")
// collective: {..., "kind": "collective", "num_devices": 16, "devices_per_host": 8,
//           "demands": [["all_reduce", "backward", "DATA_PARALLEL", 4096000.0, [0, 1, ...],
//           [0, 1, ...]]], "forward_ms": [...], "backward_ms": [...]}: the demands of one
//           collective call (same collective, pass and peers) and every device's time in it
//
// `id` is the sample's index: sample i's inputs are drawn from a generator seeded by (seed, i),
// so a resumed collection regenerates exactly the samples that are missing.
// One shard of a "shards" record: a table of the pool seen with `dim` columns, of a sharding
// type, one of `group_size` row shards (or replicas) holding `rows` rows.
struct CostShard {
  int32_t table = 0;  // pool index
  int32_t dim = 0;
  ShardingType type = ShardingType::kTableWise;
  int32_t group_size = 1;
  int64_t rows = 0;
  friend bool operator==(const CostShard&, const CostShard&) = default;
};

// One demand of a "collective" record (CollectiveDemand without its table).
struct CostDemand {
  Collective collective = Collective::kAllToAll;
  Pass pass = Pass::kForward;
  ShardingType sharding = ShardingType::kRowWise;
  double bytes = 0.0;
  std::vector<int32_t> devices;
  std::vector<int32_t> peers;
  friend bool operator==(const CostDemand&, const CostDemand&) = default;
};

// The type whose ShardingTypeName is `name` (false for another name).
bool ParseShardingTypeName(const std::string& name, ShardingType* type);

struct CostRecord {
  int64_t id = 0;
  std::string kind;  // "compute", "comm", "shards" or "collective"
  std::string backend;
  std::string hardware_profile;
  uint64_t seed = 0;
  int64_t batch_size = 0;
  std::string pool;
  std::string pool_sha256;
  std::string time;  // RFC 3339, UTC
  // compute
  std::vector<std::pair<int32_t, int32_t>> tables;  // (pool index, dim)
  double ms = 0.0;
  // shards (with ms)
  std::vector<CostShard> shards;
  // collective (with num_devices, devices_per_host, forward_ms, backward_ms)
  std::vector<CostDemand> demands;
  // comm
  int32_t num_devices = 0;
  int32_t devices_per_host = 0;  // 0: not recorded (the backend's own layout)
  std::vector<int64_t> dim_sums;
  std::vector<double> start_offsets_ms;
  std::vector<double> forward_ms;
  std::vector<double> backward_ms;
};

// A "collective" record as the domain's query: its layout (num_devices in hosts of
// devices_per_host; no memory) and its demands. What the collector measures and the trainer
// learns from, so both read a record the same way.
Topology CollectiveLayoutOf(const CostRecord& record);
std::vector<CollectiveDemand> CollectiveDemandsOf(const CostRecord& record);

// One JSON line, no trailing newline.
std::string CostRecordToJsonLine(const CostRecord& record);
// INVALID_ARGUMENT naming the field for a malformed line.
absl::StatusOr<CostRecord> CostRecordFromJsonLine(const std::string& line);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_COLLECTION_COST_RECORD_H_
