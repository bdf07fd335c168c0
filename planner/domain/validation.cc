#include "planner/domain/validation.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "planner/domain/layout_rules.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan_memory.h"
#include "planner/domain/table_access.h"
#include "planner/domain/validation_paths.h"

namespace shardplan {
namespace {

using validation::Invalid;
using validation::ShardPath;
using validation::TablePath;

bool ValidShardingType(ShardingType type) {
  switch (type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kRowWise:
    case ShardingType::kDataParallel:
    case ShardingType::kTableRowWise:
      return true;
  }
  return false;
}

bool ValidElementType(ElementType type) {
  switch (type) {
    case ElementType::kFp32:
    case ElementType::kFp16:
    case ElementType::kInt8:
    case ElementType::kBf16:
    case ElementType::kUint8:
    case ElementType::kNfp8:
      return true;
  }
  return false;
}

// Why `value` is not a finite number >= 0, or nullopt when it is.
std::optional<std::string> NotNonNegativeFinite(double value) {
  if (!std::isfinite(value)) return absl::StrCat("must be finite, got ", value);
  if (value < 0) return absl::StrCat("must be >= 0, got ", value);
  return std::nullopt;
}

absl::Status CheckLimits(const Task& task, const TaskLimits& limits) {
  if (static_cast<int64_t>(task.tables.size()) > limits.max_tables) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "tables: ", task.tables.size(), " tables exceed the limit of ", limits.max_tables));
  }
  if (task.topology.num_devices() > limits.max_devices) {
    return absl::ResourceExhaustedError(
        absl::StrCat("topology.num_devices: ", task.topology.num_devices(),
                     " devices exceed the limit of ", limits.max_devices));
  }
  if (static_cast<int64_t>(task.colocate.size()) > limits.max_colocation_groups) {
    return absl::ResourceExhaustedError(absl::StrCat("colocate: ", task.colocate.size(),
                                                     " groups exceed the limit of ",
                                                     limits.max_colocation_groups));
  }
  return absl::OkStatus();
}

// The fetch costs (fetch_cost.h): finite, non-negative microseconds; a matrix is M x M.
absl::Status CheckFetchCosts(const Topology& topology) {
  for (const auto& [path, value] :
       {std::pair<absl::string_view, double>{"topology.intra_host_latency_us",
                                             topology.intra_host_latency_us},
        std::pair<absl::string_view, double>{"topology.inter_host_latency_us",
                                             topology.inter_host_latency_us}}) {
    if (std::optional<std::string> reason = NotNonNegativeFinite(value)) {
      return Invalid(path, *reason);
    }
  }
  const size_t devices = static_cast<size_t>(topology.num_devices());
  if (!topology.fetch_cost_us.empty() && topology.fetch_cost_us.size() != devices * devices) {
    return Invalid("topology.fetch_cost_us",
                   absl::StrCat("needs num_devices x num_devices = ", devices * devices,
                                " entries (row-major, requester by holder), got ",
                                topology.fetch_cost_us.size()));
  }
  for (size_t k = 0; k < topology.fetch_cost_us.size(); ++k) {
    if (std::optional<std::string> reason = NotNonNegativeFinite(topology.fetch_cost_us[k])) {
      return Invalid(absl::StrCat("topology.fetch_cost_us[", k, "]"), *reason);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTopology(const Topology& topology) {
  if (topology.num_devices() < 1) {
    return Invalid("topology.num_devices", "must be at least 1, got 0");
  }
  for (int d = 0; d < topology.num_devices(); ++d) {
    if (topology.memory_bytes[d] <= 0) {
      return Invalid(absl::StrCat("topology.memory_bytes[", d, "]"),
                     absl::StrCat("must be positive, got ", topology.memory_bytes[d]));
    }
  }
  if (topology.devices_per_host < 0) {
    return Invalid("topology.devices_per_host",
                   absl::StrCat("must be >= 0, got ", topology.devices_per_host));
  }
  for (const auto& [path, value] :
       {std::pair<absl::string_view, double>{"topology.intra_host_bandwidth_gibps",
                                             topology.intra_host_bandwidth_gibps},
        std::pair<absl::string_view, double>{"topology.inter_host_bandwidth_gibps",
                                             topology.inter_host_bandwidth_gibps}}) {
    if (!std::isfinite(value) || value <= 0) {
      return Invalid(path, absl::StrCat("must be a positive finite number, got ", value));
    }
  }
  return CheckFetchCosts(topology);
}

absl::Status CheckTable(const Table& table, size_t i, const Task& task, const TaskLimits& limits) {
  if (table.name.empty()) return Invalid(TablePath(i, "name"), "must not be empty");
  if (static_cast<int64_t>(table.name.size()) > limits.max_name_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(TablePath(i, "name"), ": ", table.name.size(),
                                                     " bytes exceed the limit of ",
                                                     limits.max_name_bytes));
  }
  if (table.rows < 1) {
    return Invalid(TablePath(i, "rows"), absl::StrCat("must be at least 1, got ", table.rows));
  }
  if (table.rows > limits.max_rows) {
    return absl::ResourceExhaustedError(absl::StrCat(
        TablePath(i, "rows"), ": ", table.rows, " rows exceed the limit of ", limits.max_rows));
  }
  if (table.dim <= 0) {
    return Invalid(TablePath(i, "dim"), absl::StrCat("must be positive, got ", table.dim));
  }
  if (table.dim % 4 != 0) {
    return Invalid(TablePath(i, "dim"), absl::StrCat("must be a multiple of 4, got ", table.dim));
  }
  if (table.dim > limits.max_dim) {
    return absl::ResourceExhaustedError(absl::StrCat(TablePath(i, "dim"), ": ", table.dim,
                                                     " exceeds the limit of ", limits.max_dim));
  }
  if (std::optional<std::string> reason = NotNonNegativeFinite(table.pooling_factor)) {
    return Invalid(TablePath(i, "pooling_factor"), *reason);
  }
  if (table.pooling_factor > limits.max_pooling_factor) {
    return absl::ResourceExhaustedError(absl::StrCat(TablePath(i, "pooling_factor"), ": ",
                                                     table.pooling_factor, " exceeds the limit of ",
                                                     limits.max_pooling_factor));
  }
  if (!table.access_bins.empty()) {
    if (table.access_bins.size() != kNumAccessBins) {
      return Invalid(TablePath(i, "access_bins"),
                     absl::StrCat("must have 0 or ", kNumAccessBins, " entries, got ",
                                  table.access_bins.size()));
    }
    double sum = 0.0;
    for (size_t j = 0; j < table.access_bins.size(); ++j) {
      const double bin = table.access_bins[j];
      if (!(bin >= 0 && bin <= 1)) {  // also rejects NaN
        return Invalid(absl::StrCat(TablePath(i, "access_bins"), "[", j, "]"),
                       absl::StrCat("must be in [0, 1], got ", bin));
      }
      sum += bin;
    }
    // The bins are shares of the table's accessed rows. All zero: a table no batch reads (the
    // reference's data has some), which only a pooling factor of 0 describes.
    const bool unread = sum == 0 && table.pooling_factor == 0;
    if (!unread && std::fabs(sum - 1.0) > kAccessBinsSumTolerance) {
      return Invalid(TablePath(i, "access_bins"),
                     absl::StrCat("the bins are shares of the table's accessed rows and must sum "
                                  "to 1 (within ",
                                  kAccessBinsSumTolerance, "), got ", sum,
                                  sum == 0 ? " (all 0 only for a pooling factor of 0)" : ""));
    }
  }
  SHARDPLAN_RETURN_IF_ERROR(ValidateAccessProfile(table, absl::StrCat("tables[", i, "]")));
  if (!ValidElementType(table.element_type)) {
    return Invalid(TablePath(i, "element_type"),
                   absl::StrCat("invalid value ", static_cast<int>(table.element_type)));
  }
  for (size_t j = 0; j < table.allowed_sharding_types.size(); ++j) {
    if (!ValidShardingType(table.allowed_sharding_types[j])) {
      return Invalid(
          absl::StrCat(TablePath(i, "allowed_sharding_types"), "[", j, "]"),
          absl::StrCat("invalid value ", static_cast<int>(table.allowed_sharding_types[j])));
    }
  }
  if (table.pinned_device &&
      (*table.pinned_device < 0 || *table.pinned_device >= task.topology.num_devices())) {
    return Invalid(
        TablePath(i, "pinned_device"),
        absl::StrCat("device ", *table.pinned_device, " does not exist (topology.num_devices is ",
                     task.topology.num_devices(), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckColocation(const Task& task,
                             const std::unordered_map<std::string_view, size_t>& index_of) {
  // Where each table was first named: "colocate[g]".
  std::unordered_map<std::string_view, size_t> group_of;
  for (size_t g = 0; g < task.colocate.size(); ++g) {
    const std::vector<std::string>& group = task.colocate[g];
    const std::string path = absl::StrCat("colocate[", g, "]");
    if (group.empty()) return Invalid(absl::StrCat(path, ".tables"), "must name a table");
    std::optional<size_t> pinned_member;  // a table of the group with a pin
    for (size_t k = 0; k < group.size(); ++k) {
      const std::string member_path = absl::StrCat(path, ".tables[", k, "]");
      auto it = index_of.find(group[k]);
      if (it == index_of.end()) {
        return Invalid(member_path, absl::StrCat("unknown table \"", group[k], "\""));
      }
      auto [previous, inserted] = group_of.emplace(group[k], g);
      if (!inserted) {
        return Invalid(member_path, absl::StrCat("table \"", group[k], "\" is already in colocate[",
                                                 previous->second, "]"));
      }
      const Table& table = task.tables[it->second];
      if (!table.pinned_device) continue;
      if (pinned_member) {
        const Table& other = task.tables[*pinned_member];
        if (*other.pinned_device != *table.pinned_device) {
          return Invalid(path,
                         absl::StrCat("tables \"", other.name, "\" and \"", table.name,
                                      "\" are pinned to different devices (", *other.pinned_device,
                                      " and ", *table.pinned_device, ")"));
        }
      } else {
        pinned_member = it->second;
      }
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Plans: paths are formatted only for an error, since the checks run over every shard of every
// plan the service returns.

// The shards of one table: a type the table allows, shaped as its rules say (layout_rules.h).
absl::Status CheckTableSharding(const TableSharding& sharding, const Table& table,
                                const Topology& topology, size_t k) {
  if (!ValidShardingType(sharding.sharding_type)) {
    return Invalid(TablePath(k, "sharding_type"),
                   absl::StrCat("invalid value ", static_cast<int>(sharding.sharding_type)));
  }
  if (!table.Allows(sharding.sharding_type)) {
    std::vector<std::string> allowed;
    for (ShardingType type : table.allowed_sharding_types)
      allowed.push_back(ShardingTypeName(type));
    return Invalid(TablePath(k, "sharding_type"),
                   absl::StrCat(ShardingTypeName(sharding.sharding_type),
                                " is not allowed for table \"", table.name,
                                "\" (allowed: ", absl::StrJoin(allowed, ", "), ")"));
  }
  return CheckLayoutRules(sharding, table, topology, k);
}

}  // namespace

absl::Status ValidateTask(const Task& task, const TaskLimits& limits) {
  SHARDPLAN_RETURN_IF_ERROR(CheckLimits(task, limits));
  SHARDPLAN_RETURN_IF_ERROR(CheckTopology(task.topology));
  if (task.batch_size < 1) {
    return Invalid("batch_size", absl::StrCat("must be at least 1, got ", task.batch_size));
  }
  if (task.batch_size > limits.max_batch_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "batch_size: ", task.batch_size, " exceeds the limit of ", limits.max_batch_size));
  }
  if (task.max_planning_time_ms < 0 || task.max_planning_time_ms > kMaxTaskPlanningTimeMs) {
    return Invalid("max_planning_time_ms",
                   absl::StrCat("must be in [0, ", kMaxTaskPlanningTimeMs,
                                "] (0: no limit; at most a day), got ", task.max_planning_time_ms));
  }
  if (std::optional<std::string> reason =
          NotNonNegativeFinite(task.memory.optimizer_state_multiplier)) {
    return Invalid("memory.optimizer_state_multiplier", *reason);
  }
  if (std::optional<std::string> reason = NotNonNegativeFinite(task.memory.io_buffer_multiplier)) {
    return Invalid("memory.io_buffer_multiplier", *reason);
  }
  if (const double reserved = task.memory.storage_reservation; !(reserved >= 0 && reserved < 1)) {
    return Invalid(
        "memory.storage_reservation",
        absl::StrCat("must be a fraction in [0, 1) (TorchRec's default: 0.15), got ", reserved));
  }

  SHARDPLAN_RETURN_IF_ERROR(ValidateReplicationBudget(task.replication_budget));

  std::unordered_map<std::string_view, size_t> index_of;
  index_of.reserve(task.tables.size());
  for (size_t i = 0; i < task.tables.size(); ++i) {
    const Table& table = task.tables[i];
    SHARDPLAN_RETURN_IF_ERROR(CheckTable(table, i, task, limits));
    auto [previous, inserted] = index_of.emplace(table.name, i);
    if (!inserted) {
      return Invalid(TablePath(i, "name"),
                     absl::StrCat("duplicate of ", TablePath(previous->second, "name"), " \"",
                                  table.name, "\""));
    }
  }
  return CheckColocation(task, index_of);
}

absl::Status ValidatePlan(const Task& task, const Plan& plan) {
  const int num_devices = task.topology.num_devices();
  std::unordered_map<std::string_view, size_t> task_index;  // name -> task.tables index
  for (size_t i = 0; i < task.tables.size(); ++i) task_index.emplace(task.tables[i].name, i);

  // Structure: every task table exactly once, each covered exactly by its shards.
  std::vector<std::optional<size_t>> plan_index(task.tables.size());  // -> plan.tables index
  for (size_t k = 0; k < plan.tables.size(); ++k) {
    const TableSharding& sharding = plan.tables[k];
    auto it = task_index.find(sharding.table);
    if (it == task_index.end()) {
      return Invalid(TablePath(k, "table"), absl::StrCat("unknown table \"", sharding.table, "\""));
    }
    if (plan_index[it->second]) {
      return Invalid(TablePath(k, "table"),
                     absl::StrCat("duplicate of tables[", *plan_index[it->second], "].table \"",
                                  sharding.table, "\""));
    }
    plan_index[it->second] = k;
    const Table& table = task.tables[it->second];
    SHARDPLAN_RETURN_IF_ERROR(CheckTableSharding(sharding, table, task.topology, k));
    if (table.pinned_device) {
      for (size_t s = 0; s < sharding.shards.size(); ++s) {
        if (sharding.shards[s].device != *table.pinned_device) {
          return Invalid(
              absl::StrCat(ShardPath(k, s), ".device"),
              absl::StrCat("table \"", table.name, "\" is pinned to device ", *table.pinned_device,
                           ", got device ", sharding.shards[s].device));
        }
      }
    }
  }
  for (size_t i = 0; i < task.tables.size(); ++i) {
    if (!plan_index[i]) {
      return Invalid("tables",
                     absl::StrCat("table \"", task.tables[i].name, "\" is missing from the plan"));
    }
  }

  // Colocation: every shard of every table of a group on one device.
  for (size_t g = 0; g < task.colocate.size(); ++g) {
    std::optional<std::pair<int32_t, absl::string_view>> first;  // device, table
    for (const std::string& name : task.colocate[g]) {
      auto it = task_index.find(name);
      if (it == task_index.end()) continue;  // ValidateTask rejects such tasks
      for (const Shard& shard : plan.tables[*plan_index[it->second]].shards) {
        if (!first) {
          first.emplace(shard.device, name);
        } else if (shard.device != first->first) {
          return Invalid(
              absl::StrCat("colocate[", g, "]"),
              absl::StrCat("table \"", name, "\" has a shard on device ", shard.device,
                           " but table \"", first->second, "\" is on device ", first->first));
        }
      }
    }
  }

  // Memory: the only check that makes a well-formed plan infeasible rather than wrong.
  absl::StatusOr<PlanMemory> memory = PlanMemoryOf(task, plan);
  if (!memory.ok()) return memory.status();
  for (int d = 0; d < num_devices; ++d) {
    const int64_t capacity = task.topology.memory_bytes[d];
    const int64_t used = memory->devices[d].bytes;
    if (used > capacity) {
      return absl::FailedPreconditionError(
          absl::StrCat("device ", d, ": needs ", FormatGiB(used), " but has ",
                       FormatGiB(capacity), " (", used, " > ", capacity, " bytes)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace shardplan
