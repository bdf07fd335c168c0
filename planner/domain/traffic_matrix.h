#ifndef SHARDPLAN_PLANNER_DOMAIN_TRAFFIC_MATRIX_H_
#define SHARDPLAN_PLANNER_DOMAIN_TRAFFIC_MATRIX_H_

// The bytes a plan's row layouts make devices send each other in one training step, as device x
// device matrices, one per collective and pass (docs/cost-models.md, "Traffic matrix"). Entry
// (i, j) is what device i sends device j; the diagonal is a collective's local chunk (it moves no
// link). For a global batch B over W devices, a requester's share of the batch is B / W, and for a
// table of D columns (c of them in a group):
//
//   lookups           requester r -> the replica serving r: pooling x B / W x lookup share x 8
//                     (int64 ids; today's cost models count no input traffic)
//   forward all-to-all    column-level shard -> every requester: B / W x c x 4 (pooled outputs);
//                     TABLE_ROW_WISE's cross-host hop, shard -> every device of its local rank:
//                     B / W x c x 4; a DATA_PARALLEL replica -> each other device routed to it:
//                     B / W x c x 4 (a replica serving its own device moves nothing)
//   reduce-scatter    ROW_WISE group replica -> every requester it serves: B / W x c x 4
//                     (partial sums; a replicated hot group serves each holder on the
//                     diagonal); TABLE_ROW_WISE: shard -> every device of its host, B / L x c x 4.
//                     A SEQUENCE table's ROW_WISE rows found travel whole instead, in the
//                     forward all-to-all: L x B / W x share x c x 4
//   all-gather, backward all-to-all   the transposes of reduce-scatter and forward all-to-all
//   all-reduce        within each replicated group, replica -> replica: S / k (S = the group's
//                     rows x c x element bytes, k replicas): the reduce-scatter half of the
//                     gradient all-reduce; the all-gather half is its transpose
//
// Today's per-collective volumes are sums of these: a device's forward volume is its row sum, a backward volume its column sum (the bytes
// DescribePlacement's CollectiveDemands and dim sums charge it; traffic_matrix_test checks every
// golden plan).

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Bytes per looked-up id (int64), what the lookups matrix carries.
inline constexpr int kLookupIdBytes = 8;

class TrafficMatrix {
 public:
  TrafficMatrix() = default;
  explicit TrafficMatrix(int num_devices);

  int num_devices() const { return n_; }
  double at(int from, int to) const { return bytes_[Index(from, to)]; }
  void Add(int from, int to, double bytes) { bytes_[Index(from, to)] += bytes; }
  void Add(const TrafficMatrix& other);

  double RowSum(int from) const;    // what `from` sends, its local chunk included
  double ColumnSum(int to) const;   // what `to` receives, its local chunk included
  double OffDiagonal() const;       // bytes that cross a link
  TrafficMatrix Transposed() const;

 private:
  size_t Index(int from, int to) const { return static_cast<size_t>(from) * n_ + to; }
  int n_ = 0;
  std::vector<double> bytes_;
};

struct LayoutTraffic {
  TrafficMatrix lookups;
  TrafficMatrix forward_all_to_all;
  TrafficMatrix reduce_scatter;  // forward
  TrafficMatrix all_gather;      // backward
  TrafficMatrix backward_all_to_all;
  TrafficMatrix all_reduce;      // backward

  explicit LayoutTraffic(int num_devices = 0);
  void Add(const LayoutTraffic& other);
};

// The share of a table's lookups that rows [begin, end) (in `order`) receive. The default
// spreads lookups evenly over rows (row count / table rows); an access profile replaces it.
using LookupShareOfRows =
    std::function<double(const Table& table, RowOrder order, int64_t begin, int64_t end)>;
double UniformLookupShare(const Table& table, RowOrder order, int64_t begin, int64_t end);

// The bytes of one requester's outputs of a row group of `columns` columns serving
// `lookup_share` of the table's lookups, for its `requester_batch` samples: pooled partial sums
// (or a replica's pooled outputs) requester_batch x columns x 4; a sequence table's rows found,
// which travel whole, pooling x requester_batch x lookup_share x columns x 4.
double OutputBytesPerRequester(const Table& table, int32_t columns, double lookup_share,
                               double requester_batch);

// The traffic of one table's layout (`sharding` of `table`) on `topology` at global batch
// `batch_size`. Shards must be within the table and on real devices (ValidatePlan).
LayoutTraffic TableTraffic(const Table& table, const TableSharding& sharding,
                           const Topology& topology, int64_t batch_size,
                           const LookupShareOfRows& lookup_share = UniformLookupShare);

// The sum over a plan's tables. INVALID_ARGUMENT naming the field for an unknown table or a
// device that does not exist.
absl::StatusOr<LayoutTraffic> PlanTraffic(const Task& task, const Plan& plan,
                                          const LookupShareOfRows& lookup_share =
                                              UniformLookupShare);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_TRAFFIC_MATRIX_H_
