#include "planner/domain/traffic_matrix.h"

#include "planner/domain/row_layout.h"
#include "planner/domain/sharding_semantics.h"

namespace shardplan {

TrafficMatrix::TrafficMatrix(int num_devices)
    : n_(num_devices), bytes_(static_cast<size_t>(num_devices) * num_devices, 0.0) {}

void TrafficMatrix::Add(const TrafficMatrix& other) {
  for (size_t i = 0; i < bytes_.size() && i < other.bytes_.size(); ++i) bytes_[i] += other.bytes_[i];
}

double TrafficMatrix::RowSum(int from) const {
  double sum = 0.0;
  for (int to = 0; to < n_; ++to) sum += at(from, to);
  return sum;
}

double TrafficMatrix::ColumnSum(int to) const {
  double sum = 0.0;
  for (int from = 0; from < n_; ++from) sum += at(from, to);
  return sum;
}

double TrafficMatrix::OffDiagonal() const {
  double sum = 0.0;
  for (int from = 0; from < n_; ++from) {
    for (int to = 0; to < n_; ++to) {
      if (from != to) sum += at(from, to);
    }
  }
  return sum;
}

TrafficMatrix TrafficMatrix::Transposed() const {
  TrafficMatrix transposed(n_);
  for (int from = 0; from < n_; ++from) {
    for (int to = 0; to < n_; ++to) transposed.Add(to, from, at(from, to));
  }
  return transposed;
}

LayoutTraffic::LayoutTraffic(int num_devices)
    : lookups(num_devices),
      forward_all_to_all(num_devices),
      reduce_scatter(num_devices),
      all_gather(num_devices),
      backward_all_to_all(num_devices),
      all_reduce(num_devices) {}

void LayoutTraffic::Add(const LayoutTraffic& other) {
  lookups.Add(other.lookups);
  forward_all_to_all.Add(other.forward_all_to_all);
  reduce_scatter.Add(other.reduce_scatter);
  all_gather.Add(other.all_gather);
  backward_all_to_all.Add(other.backward_all_to_all);
  all_reduce.Add(other.all_reduce);
}

double UniformLookupShare(const Table& table, RowOrder /*order*/, int64_t begin, int64_t end) {
  return table.rows > 0 ? static_cast<double>(end - begin) / static_cast<double>(table.rows) : 0.0;
}

double OutputBytesPerRequester(const Table& table, int32_t columns, double lookup_share,
                               double requester_batch) {
  const double per_sample = static_cast<double>(columns) * kActivationBytes;
  return table.pooling == Pooling::kSequence
             ? table.pooling_factor * requester_batch * lookup_share * per_sample
             : requester_batch * per_sample;
}

namespace {

// The pooled outputs (or partial sums) of `group` for the requesters each replica serves.
void AddOutputs(const TableLayout& layout, const RowGroup& group,
                const std::vector<int32_t>& serving, const std::vector<Shard>& shards,
                const Topology& topology, double per_requester, LayoutTraffic& traffic) {
  const int num_devices = topology.num_devices();
  switch (layout.sharding_type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      for (int r = 0; r < num_devices; ++r) {
        traffic.forward_all_to_all.Add(shards[serving[r]].device, r, per_requester);
      }
      break;
    case ShardingType::kRowWise: {
      // Partial sums reduce in flight; a sequence table's rows cannot, they are exchanged.
      TrafficMatrix& outputs = layout.table->pooling == Pooling::kSequence
                                   ? traffic.forward_all_to_all
                                   : traffic.reduce_scatter;
      for (int r = 0; r < num_devices; ++r) {
        outputs.Add(shards[serving[r]].device, r, per_requester);
      }
      break;
    }
    case ShardingType::kTableRowWise: {
      const int32_t device = group.devices[0];
      const std::vector<int32_t> host = topology.DevicesOnHostOf(device);
      const double per_local = per_requester * num_devices / static_cast<double>(host.size());
      for (int32_t local : host) traffic.reduce_scatter.Add(device, local, per_local);
      if (topology.num_hosts() > 1) {
        for (int32_t peer : topology.DevicesWithLocalRankOf(device)) {
          traffic.forward_all_to_all.Add(device, peer, per_requester);
        }
      }
      break;
    }
    case ShardingType::kDataParallel:
      // A replica serving its own device's samples moves nothing; others get theirs sent.
      for (int r = 0; r < num_devices; ++r) {
        const int32_t device = shards[serving[r]].device;
        if (device != r) traffic.forward_all_to_all.Add(device, r, per_requester);
      }
      break;
  }
}

}  // namespace

LayoutTraffic TableTraffic(const Table& table, const TableSharding& sharding,
                           const Topology& topology, int64_t batch_size,
                           const LookupShareOfRows& lookup_share) {
  const int num_devices = topology.num_devices();
  LayoutTraffic traffic(num_devices);
  const TableLayout layout = LayoutOf(table, sharding);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, topology);
  const double requester_batch = static_cast<double>(batch_size) / num_devices;
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    const RowGroup& group = layout.groups[g];
    const double share = lookup_share(table, layout.row_order, group.row_offset,
                                      group.row_offset + group.row_count);
    const double ids = table.pooling_factor * requester_batch * share * kLookupIdBytes;
    for (int r = 0; r < num_devices; ++r) {
      traffic.lookups.Add(r, sharding.shards[serving[g][r]].device, ids);
    }
    AddOutputs(layout, group, serving[g], sharding.shards, topology,
               OutputBytesPerRequester(table, group.column_count, share, requester_batch),
               traffic);
    if (group.replicas() > 1) {
      // The gradient all-reduce among the group's replicas: each sends each its 1/k slice.
      const double slice = static_cast<double>(group.row_count) * group.column_count *
                           ElementBytes(table.element_type) / group.replicas();
      for (int32_t from : group.devices) {
        for (int32_t to : group.devices) traffic.all_reduce.Add(from, to, slice);
      }
    }
  }
  traffic.all_gather = traffic.reduce_scatter.Transposed();
  traffic.backward_all_to_all = traffic.forward_all_to_all.Transposed();
  return traffic;
}

absl::StatusOr<LayoutTraffic> PlanTraffic(const Task& task, const Plan& plan,
                                          const LookupShareOfRows& lookup_share) {
  absl::StatusOr<std::vector<const Table*>> tables = TablesOfPlan(task, plan);
  if (!tables.ok()) return tables.status();
  LayoutTraffic traffic(task.topology.num_devices());
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    traffic.Add(TableTraffic(*(*tables)[k], plan.tables[k], task.topology, task.batch_size,
                             lookup_share));
  }
  return traffic;
}

}  // namespace shardplan
