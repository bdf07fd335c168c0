#ifndef SHARDPLAN_PLANNER_DOMAIN_SHARDING_SEMANTICS_H_
#define SHARDPLAN_PLANNER_DOMAIN_SHARDING_SEMANTICS_H_

// What each sharding type serves, holds and causes: the one place that turns a placement into
// the queries cost models answer (docs/cost-models.md, "Sharding semantics"). TorchRec's
// estimator is the model (shard_estimators.py, _get_{tw,rw,twrw,dp}_sharding_perf):
//
//   type  a shard serves                          it holds         collectives it causes
//   TW    every lookup of the table, whole batch  the table        pooled-output all-to-all
//   CW    the same, for its columns               its columns      the same
//   RW    1/n of the lookups (n row shards),      its rows         reduce-scatter of partial
//         partial sums for the whole batch                         sums (fwd), all-gather (bwd)
//   TWRW  as RW, its n shards on one host         its rows         reduce-scatter / all-gather in
//                                                                  the host, all-to-all across
//   DP    its device's share of the batch (1/W)   the whole table  all-reduce of the gradient
//
// Lookups are spread evenly over row shards, as TorchRec's estimator assumes, unless the table's
// access profile says its row ids are ranks (then a row range serves its curve's share); the
// simulator (groundtruth/sim) costs the rows and access classes a shard really holds.
// SEQUENCE tables (B x L x D outputs, not reducible in flight): column-level shards count
// L x columns in the all-to-all, row shards all-to-all the rows they looked up instead of
// reduce-scattering partial sums. Inference (Task::objective) drops every backward collective.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"

namespace shardplan {

// What a shard of a routed layout serves (row_layout.h: replicated row groups, a data-parallel
// table on some devices, explicit routes): the requesters routed to it, and its rows' share of
// the table's lookups. Classic layouts leave it empty and their shards serve what their type
// says (docs/cost-models.md, "Routed layouts").
struct RoutedShare {
  int32_t requesters = 0;   // devices whose lookups of its rows it serves (may be 0)
  int32_t world_size = 0;   // the topology's devices; 0: not routed
  double rows_share = 0.0;  // its rows' share of the table's lookups (1 for a whole table)
  bool ranked = false;      // its rows are ranks of the table's curve (routed_layout_queries.h)
  int64_t ranks_begin = 0;  // ranked: the rank range whose access classes its rows have
  int64_t ranks_end = 0;

  bool routed() const { return world_size > 0; }
  // The fraction of the global batch whose lookups of its rows it serves.
  double requester_share() const {
    return world_size > 0 ? static_cast<double>(requesters) / world_size : 0.0;
  }
};

// One shard as a cost model sees it: the table's statistics with the shard's geometry and what
// its sharding type makes it serve.
struct ShardView {
  const Table* table = nullptr;
  int64_t rows = 0;     // the shard's row count
  int32_t columns = 0;  // the shard's column count: the "dim" a cost model sees
  ShardingType sharding = ShardingType::kTableWise;
  // ROW_WISE / TABLE_ROW_WISE: the table's row shards; DATA_PARALLEL: its replicas; else 1.
  int32_t group_size = 1;
  int64_t row_offset = 0;  // the shard's first row (row-level shards)
  RoutedShare routed = {};  // set for shards of routed layouts only
};

// TABLE_WISE and COLUMN_WISE: a shard serves every lookup of its columns and sends its pooled
// outputs in the one all-to-all that per-device dim sums describe.
bool IsColumnLevel(ShardingType type);

// `shard` of `sharding` (table `table`) as a cost model sees it: column-level shards have a group
// of 1, row-level shards and replicas the table's shard count.
ShardView ViewOfShard(const Table& table, const TableSharding& sharding, const Shard& shard);

// The fused kernel call a shard runs in on its device, as TorchRec runs one lookup module per
// sharding type: 0 for TABLE_WISE and COLUMN_WISE shards together (the reference fuses every
// table of a device), 1 for ROW_WISE, 2 for TABLE_ROW_WISE, 3 + replicas for DATA_PARALLEL (one
// call per replica count: replicas of one count serve the same batch share). Calls run in key
// order; -1 for a row block without rows, which serves nothing and runs in no call. A routed
// layout's shards run one call per type and requester count (a tier of FlexShard's: its own
// lookup module at its own batch), after the classic calls. The simulator runs these calls
// (groundtruth/shard_kernels.h) and per-call cost models cost them.
int64_t KernelCallKey(const ShardView& shard);

// The fraction of the table's lookups in a global batch that the shard serves: a row shard
// 1/n of them, or, when the table's profile says its row ids are ranks, the share its rank
// range serves on the table's rank-frequency curve (planner/domain/table_access.h). A routed
// shard: its rows' share times the share of the batch routed to it.
double LookupShare(const ShardView& shard);
// Outputs per sample and column: 1 for a pooled table, its pooling factor L for a sequence
// table (B x L x D outputs).
double OutputsPerSample(const Table& table);
// The columns a shard of `columns` columns adds to its device's pooled all-to-all (dim sums):
// its columns, times L (rounded) for a sequence table, whose outputs travel whole.
int64_t AllToAllColumns(const Table& table, int32_t columns);
// The fraction of the global batch whose (partial) pooled outputs the shard produces (a routed
// shard: the requesters routed to it).
double BatchShare(const ShardView& shard, int num_devices);

// TorchRec's CollectiveType.
enum class Collective { kAllToAll, kReduceScatter, kAllGather, kAllReduce };
const char* CollectiveName(Collective collective);

enum class Pass { kForward, kBackward };

// Bytes device `from` sends device `to` in a routed all-to-all (from == to: its local chunk).
struct PairBytes {
  int32_t from = 0;
  int32_t to = 0;
  double bytes = 0.0;
};

// One collective that a table's row-level or data-parallel shards take part in. Each device of
// `devices` (one per shard, in shard order) puts `bytes` into it. A routed all-to-all (a routed
// layout's outputs, docs/cost-models.md "Routed layouts") says instead who sends whom what, in
// `pairs`; `bytes` is then the largest of `devices`' send totals (the pairs carry the traffic).
struct CollectiveDemand {
  Collective collective = Collective::kAllToAll;
  Pass pass = Pass::kForward;
  ShardingType sharding = ShardingType::kRowWise;
  const Table* table = nullptr;
  int32_t columns = 0;           // the embedding columns it carries
  std::vector<int32_t> devices;  // the devices charged, one per shard
  std::vector<int32_t> peers;    // every device the collective spans (senders and receivers)
  bool crosses_hosts = false;    // whether `peers` sit on more than one host
  double bytes = 0.0;            // bytes each of `devices` puts in
  std::vector<PairBytes> pairs = {};  // a routed all-to-all's traffic; empty: spread evenly
  // A routed all-to-all's tier: the replicas of the row groups whose outputs it carries. Tiers
  // are separate calls (separate lookup modules); 0 for every other demand.
  int32_t tier = 0;
};

// A placement as cost queries: the shards each device computes, the column-level all-to-all's
// dim sums, and the other collectives.
struct PlacementQueries {
  std::vector<std::vector<ShardView>> shards_per_device;
  std::vector<int64_t> dim_sums;  // per device: columns of its TABLE_WISE/COLUMN_WISE shards
  std::vector<CollectiveDemand> collectives;
  // Plan indices of the tables whose layouts are routed (not one of the five classic shapes):
  // only models that cost row layouts (CostModel::CostsRowLayouts) may cost these queries.
  std::vector<int32_t> routed_tables;
};

// Bytes per element of the pooled outputs that collectives move (fp32, as the reference's
// all-to-all).
inline constexpr int kActivationBytes = 4;

// The queries of `plan` on `task`. The plan must name tables of the task, valid devices and
// shards that fit their table (ValidatePlan checks more); otherwise INVALID_ARGUMENT names the
// field. `task` must outlive the result.
absl::StatusOr<PlacementQueries> DescribePlacement(const Task& task, const Plan& plan);

// The collectives of one table's shards (as planned: `sharding.shards` on `topology`), for a
// global batch of `batch_size`. Column-level tables cause none here (their all-to-all is the
// dim sums').
std::vector<CollectiveDemand> TableCollectives(const Table& table, const TableSharding& sharding,
                                               const Topology& topology, int64_t batch_size);

// TableCollectives on `task`'s topology and batch, for its objective: without the backward
// pass's collectives for inference. What DescribePlacement and incremental costers add.
std::vector<CollectiveDemand> TaskCollectives(const Task& task, const Table& table,
                                              const TableSharding& sharding);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_SHARDING_SEMANTICS_H_
