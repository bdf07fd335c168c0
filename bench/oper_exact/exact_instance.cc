#include "bench/oper_exact/exact_instance.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/seeded_rng.h"
#include "planner/domain/memory.h"
#include "planner/domain/table_access.h"

namespace shardplan::oper_exact {

std::string InstanceName(const InstanceSpec& spec) {
  const int per_host = spec.devices_per_host > 0 ? spec.devices_per_host : spec.devices;
  const int hosts = (spec.devices + per_host - 1) / per_host;
  return absl::StrFormat("%dx%d t%d thr%g s%d", hosts, per_host, spec.tables, spec.threshold,
                         spec.seed);
}

absl::StatusOr<std::unique_ptr<ExactInstance>> MakeInstance(const InstanceSpec& spec) {
  const auto invalid = [](const std::string& field, const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("instance.", field, ": ", why));
  };
  if (spec.tables < 1) return invalid("tables", "needs at least 1 table");
  if (spec.devices < 1) return invalid("devices", "needs at least 1 device");
  if (spec.devices_per_host < 0) return invalid("devices_per_host", "must be >= 0");
  if (spec.min_rows < 1 || spec.min_rows > spec.max_rows) {
    return invalid("min_rows", "must lie in [1, max_rows]");
  }
  if (spec.dim < 1) return invalid("dim", "must be >= 1");
  if (!(spec.threshold > 0.0 && spec.threshold <= 1.0)) {
    return invalid("threshold", "must lie in (0, 1]");
  }
  if (!(spec.capacity_slack >= 0.0)) return invalid("capacity_slack", "must be >= 0");
  if (!(spec.extra_memory >= 0.0)) return invalid("extra_memory", "must be >= 0");
  if (!(spec.zipf_exponent >= 0.0 && spec.zipf_exponent <= 3.0)) {
    return invalid("zipf_exponent", "must lie in [0, 3]");
  }

  auto instance = std::make_unique<ExactInstance>();
  instance->spec = spec;
  Task& task = instance->task;
  task.objective = Objective::kInference;
  task.batch_size = spec.batch_size;
  std::mt19937_64 rng = SampleRng(spec.seed, 0);
  const double log_min = std::log(static_cast<double>(spec.min_rows));
  const double log_max = std::log(static_cast<double>(spec.max_rows));
  for (int t = 0; t < spec.tables; ++t) {
    Table table;
    table.name = absl::StrCat("t", t);
    table.rows = static_cast<int64_t>(
        std::llround(std::exp(log_min + (log_max - log_min) * Uniform01(rng))));
    table.dim = spec.dim;
    table.pooling_factor = 1.0;
    table.access_profile.zipf = ZipfAccessProfile{.exponent = spec.zipf_exponent};
    instance->footprint_bytes += ShardMemoryBytes(table, table.rows, table.dim, task.memory);
    task.tables.push_back(std::move(table));
  }
  const double share = static_cast<double>(instance->footprint_bytes) / spec.devices;
  task.topology.memory_bytes.assign(
      spec.devices, static_cast<int64_t>(std::ceil((1.0 + spec.capacity_slack) * share)));
  task.topology.devices_per_host = spec.devices_per_host;
  task.topology.inter_host_latency_us = spec.inter_host_latency_us;
  task.replication_budget.extra_bytes_per_device =
      static_cast<int64_t>(std::floor(spec.extra_memory * share));

  // As the planner reads the tables (oper_planner.cc): the profile's curve, A_k = pooling x
  // local batch.
  const double local_batch = static_cast<double>(LocalBatchSize(task));
  instance->curves.reserve(task.tables.size());
  for (const Table& table : task.tables) {
    instance->curves.push_back(CurveOf(table, task.batch_size));
    instance->tables.push_back({.table = &table,
                                .curve = &instance->curves.back(),
                                .lookups_per_device = table.pooling_factor * local_batch});
  }
  instance->partitions = oper::PartitionTables(instance->tables, task.memory, spec.threshold);
  instance->cost = FetchCostMatrix::OfTopology(task.topology);
  return instance;
}

std::vector<int64_t> SpareMemory(const ExactInstance& instance, const std::vector<int32_t>& owner) {
  std::vector<int64_t> used(instance.devices(), 0);
  for (size_t p = 0; p < owner.size(); ++p) used[owner[p]] += instance.partitions[p].bytes;
  std::vector<int64_t> spare;
  for (int d = 0; d < instance.devices(); ++d) {
    const int64_t capacity = instance.capacities()[d];
    const double budget = std::floor(instance.task.replication_budget.BytesOn(capacity));
    spare.push_back(std::max<int64_t>(
        0, std::min<int64_t>(capacity - used[d], static_cast<int64_t>(std::max(budget, 0.0)))));
  }
  return spare;
}

}  // namespace shardplan::oper_exact
