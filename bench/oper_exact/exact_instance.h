#ifndef SHARDPLAN_BENCH_OPER_EXACT_EXACT_INSTANCE_H_
#define SHARDPLAN_BENCH_OPER_EXACT_EXACT_INSTANCE_H_

// Small OPER instances for the exact check (docs/oper.md, "Exact check"): a few Zipf tables on
// 2-8 devices, cut into OPER's partitions by the planner's own code (oper_partitions.h) at one
// threshold, with capacities a little above a balanced share so that memory binds, the fetch
// costs of the topology (planner/domain/fetch_cost.h) and a replication budget per device.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/fetch_cost.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/domain/rank_frequency.h"
#include "planner/domain/task.h"

namespace shardplan::oper_exact {

struct InstanceSpec {
  int tables = 3;
  int devices = 4;
  int devices_per_host = 0;  // 0: one host
  int64_t min_rows = 1'000;  // rows per table log-uniform in [min_rows, max_rows]
  int64_t max_rows = 100'000;
  int32_t dim = 16;
  double zipf_exponent = 1.05;  // every table's rows (the access profile's exponent)
  double threshold = 0.05;      // OPER's partition bound
  double capacity_slack = 0.5;  // each device holds (1 + slack) x footprint / devices
  double extra_memory = 0.05;   // replicas: this share of the footprint / devices per device
  double inter_host_latency_us = 0.0;
  int64_t batch_size = 4096;
  uint64_t seed = 0;
};

// "2x4 t4 thr0.05 s1": hosts x devices per host, tables, threshold, seed.
std::string InstanceName(const InstanceSpec& spec);

// One instance. Not copyable: `tables` point into `task` and `curves`.
struct ExactInstance {
  ExactInstance() = default;
  ExactInstance(const ExactInstance&) = delete;
  ExactInstance& operator=(const ExactInstance&) = delete;

  InstanceSpec spec;
  Task task;  // INFERENCE, its replication budget extra_memory's bytes per device
  std::vector<RankFrequencyCurve> curves;
  std::vector<oper::PartitionTable> tables;
  std::vector<oper::Partition> partitions;
  FetchCostMatrix cost;
  int64_t footprint_bytes = 0;  // one copy of every table

  int devices() const { return task.topology.num_devices(); }
  const std::vector<int64_t>& capacities() const { return task.topology.memory_bytes; }
};

// The instance of `spec` (deterministic for spec.seed). INVALID_ARGUMENT naming the field for
// a spec out of range (no tables or devices, min_rows > max_rows, ...).
absl::StatusOr<std::unique_ptr<ExactInstance>> MakeInstance(const InstanceSpec& spec);

// Per device, what replicas may take once partitions sit on `owner`: the task's replication
// budget within the free memory (the planner's rule, docs/oper.md C11).
std::vector<int64_t> SpareMemory(const ExactInstance& instance, const std::vector<int32_t>& owner);

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_EXACT_INSTANCE_H_
