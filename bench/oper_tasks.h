#ifndef SHARDPLAN_BENCH_OPER_TASKS_H_
#define SHARDPLAN_BENCH_OPER_TASKS_H_

// Tasks for OPER's benchmarks (bench/oper_sweeps): a data set's features as tables
// (bench/dataset_tables.h) with one Zipf exponent for every table, attached as an access profile
// (the curve OPER ranks rows by, and nothing else: no histogram, as a client sending a profile
// would), on hosts of equal devices, with the replication budget given as a share of the tables'
// footprint split evenly over the devices (docs/oper.md, C11: the paper's "extra memory ratio").

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/dataset_tables.h"
#include "planner/domain/task.h"

namespace shardplan::bench {

struct OperTaskShape {
  int hosts = 1;
  int devices_per_host = 8;
  double device_memory_gib = 40;
  std::string hardware = "a100-sxm4";
  int64_t batch_size = 16384;  // global
  int32_t dim = 16;
  Objective objective = Objective::kInference;
  double zipf_exponent = 1.05;
  // Extra memory for copies as a share of the tables' footprint (0.01: 1%), split evenly: each
  // device's replication_budget.extra_bytes_per_device is floor(share x footprint / devices).
  double extra_memory_share = 0.0;
};

// The task, validated (ValidateTask) and canonical (CanonicalTask). INVALID_ARGUMENT naming the
// field for a shape ValidateTask or MakeDatasetTables refuses.
absl::StatusOr<Task> OperDatasetTask(const DatasetSpec& spec, const OperTaskShape& shape);

// The tables' memory under the task's memory options, summed (TableMemoryBytes): what the extra
// memory share is a share of.
int64_t TablesFootprintBytes(const Task& task);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_OPER_TASKS_H_
