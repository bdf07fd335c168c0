#include "planner/json_io.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "planner/proto_json.h"
#include "planner/status_macros.h"

namespace shardplan {
namespace {

using nlohmann::json;
using proto_json::Index;
using proto_json::ObjectFields;

// Proto enum names and numbers (proto/shardplan/v1/planner.proto).
const std::vector<std::pair<absl::string_view, int>>& ElementTypeValues() {
  static const auto* values = new std::vector<std::pair<absl::string_view, int>>{
      {"ELEMENT_TYPE_UNSPECIFIED", 0}, {"FP32", 1}, {"FP16", 2}, {"INT8", 3}};
  return *values;
}

const std::vector<std::pair<absl::string_view, int>>& ShardingTypeValues() {
  static const auto* values =
      new std::vector<std::pair<absl::string_view, int>>{{"SHARDING_TYPE_UNSPECIFIED", 0},
                                                         {"TABLE_WISE", 1},
                                                         {"COLUMN_WISE", 2},
                                                         {"ROW_WISE", 3},
                                                         {"DATA_PARALLEL", 4}};
  return *values;
}

absl::StatusOr<ElementType> ReadElementType(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(int number,
                             proto_json::ReadEnum(value, path, "ElementType", ElementTypeValues()));
  switch (number) {
    case 2:
      return ElementType::kFp16;
    case 3:
      return ElementType::kInt8;
    default:
      return ElementType::kFp32;  // FP32, or UNSPECIFIED which the proto treats as FP32
  }
}

absl::StatusOr<ShardingType> ReadShardingType(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      int number, proto_json::ReadEnum(value, path, "ShardingType", ShardingTypeValues()));
  switch (number) {
    case 1:
      return ShardingType::kTableWise;
    case 2:
      return ShardingType::kColumnWise;
    case 3:
      return ShardingType::kRowWise;
    case 4:
      return ShardingType::kDataParallel;
    default:
      // The proto default carries no meaning in the domain; a plan must say how it shards.
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": must be set (SHARDING_TYPE_UNSPECIFIED is not a sharding type)"));
  }
}

// Reads an optional scalar field into `out`; absent or null leaves `out` at its default.
template <typename T, typename Reader>
absl::Status ReadField(const ObjectFields& fields, absl::string_view name, Reader reader, T& out) {
  const json* value = fields.Find(name);
  if (value == nullptr) return absl::OkStatus();
  SHARDPLAN_ASSIGN_OR_RETURN(out, reader(*value, fields.PathOf(name)));
  return absl::OkStatus();
}

// Reads a repeated field, element i read by `reader(element, "path[i]")`.
template <typename T, typename Reader>
absl::Status ReadRepeated(const ObjectFields& fields, absl::string_view name, Reader reader,
                          std::vector<T>& out) {
  out.clear();
  const json* value = fields.Find(name);
  if (value == nullptr) return absl::OkStatus();
  const std::string path = fields.PathOf(name);
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<const json*> elements,
                             proto_json::ReadArray(*value, path));
  out.reserve(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(T element, reader(*elements[i], Index(path, i)));
    out.push_back(std::move(element));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Task

absl::StatusOr<Table> ReadTable(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields,
      ObjectFields::Read(value, path,
                         {"name", "rows", "dim", "pooling_factor", "access_bins", "element_type",
                          "allowed_sharding_types", "pinned_device"}));
  Table table;
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "name", proto_json::ReadString, table.name));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "rows", proto_json::ReadInt64, table.rows));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "dim", proto_json::ReadInt32, table.dim));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "pooling_factor", proto_json::ReadDouble, table.pooling_factor));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadRepeated(fields, "access_bins", proto_json::ReadDouble, table.access_bins));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "element_type", ReadElementType, table.element_type));
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "allowed_sharding_types", ReadShardingType,
                                         table.allowed_sharding_types));
  if (const json* pinned = fields.Find("pinned_device"); pinned != nullptr) {
    SHARDPLAN_ASSIGN_OR_RETURN(table.pinned_device,
                               proto_json::ReadInt32(*pinned, fields.PathOf("pinned_device")));
  }
  return table;
}

absl::StatusOr<Topology> ReadTopology(const json* value) {
  int64_t num_devices = 0;
  double device_memory_gib = 0;
  std::vector<double> per_device_memory_gib;
  int64_t devices_per_host = 0;
  double intra_host_bandwidth_gibps = 0;
  double inter_host_bandwidth_gibps = 0;
  if (value != nullptr) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        ObjectFields fields,
        ObjectFields::Read(
            *value, "topology",
            {"num_devices", "device_memory_gib", "per_device_memory_gib", "devices_per_host",
             "intra_host_bandwidth_gibps", "inter_host_bandwidth_gibps"}));
    SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "num_devices", proto_json::ReadInt32, num_devices));
    SHARDPLAN_RETURN_IF_ERROR(
        ReadField(fields, "device_memory_gib", proto_json::ReadDouble, device_memory_gib));
    SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "per_device_memory_gib", proto_json::ReadDouble,
                                           per_device_memory_gib));
    SHARDPLAN_RETURN_IF_ERROR(
        ReadField(fields, "devices_per_host", proto_json::ReadInt32, devices_per_host));
    SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "intra_host_bandwidth_gibps",
                                        proto_json::ReadDouble, intra_host_bandwidth_gibps));
    SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "inter_host_bandwidth_gibps",
                                        proto_json::ReadDouble, inter_host_bandwidth_gibps));
  }
  return MakeTopology(num_devices, device_memory_gib, per_device_memory_gib, devices_per_host,
                      intra_host_bandwidth_gibps, inter_host_bandwidth_gibps);
}

absl::StatusOr<std::vector<std::string>> ReadColocationGroup(const json& value,
                                                             const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(ObjectFields fields, ObjectFields::Read(value, path, {"tables"}));
  std::vector<std::string> tables;
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "tables", proto_json::ReadString, tables));
  return tables;
}

absl::StatusOr<MemoryOptions> ReadMemoryOptions(const json* value) {
  MemoryOptions options;
  if (value == nullptr) return options;
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields,
      ObjectFields::Read(*value, "memory", {"optimizer_state_multiplier", "io_buffer_multiplier"}));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "optimizer_state_multiplier", proto_json::ReadDouble,
                                      options.optimizer_state_multiplier));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "io_buffer_multiplier", proto_json::ReadDouble,
                                      options.io_buffer_multiplier));
  return options;
}

json TableToJson(const Table& table) {
  json out = json::object();
  out["name"] = table.name;
  out["rows"] = table.rows;
  out["dim"] = table.dim;
  out["pooling_factor"] = proto_json::WriteDouble(table.pooling_factor);
  json bins = json::array();
  for (double bin : table.access_bins) bins.push_back(proto_json::WriteDouble(bin));
  out["access_bins"] = std::move(bins);
  out["element_type"] = ElementTypeName(table.element_type);
  json allowed = json::array();
  for (ShardingType type : table.allowed_sharding_types) allowed.push_back(ShardingTypeName(type));
  out["allowed_sharding_types"] = std::move(allowed);
  if (table.pinned_device) out["pinned_device"] = *table.pinned_device;
  return out;
}

json TopologyToJson(const Topology& topology) {
  json out = json::object();
  out["num_devices"] = topology.num_devices();
  bool uniform = true;
  for (int64_t bytes : topology.memory_bytes) uniform &= bytes == topology.memory_bytes.front();
  // bytes / 2^30 is exact in a double, so MakeTopology's llround gives the bytes back.
  if (uniform && !topology.memory_bytes.empty()) {
    out["device_memory_gib"] =
        proto_json::WriteDouble(static_cast<double>(topology.memory_bytes.front()) / kBytesPerGiB);
  } else {
    json per_device = json::array();
    for (int64_t bytes : topology.memory_bytes) {
      per_device.push_back(proto_json::WriteDouble(static_cast<double>(bytes) / kBytesPerGiB));
    }
    out["per_device_memory_gib"] = std::move(per_device);
  }
  out["devices_per_host"] = topology.devices_per_host;
  out["intra_host_bandwidth_gibps"] = proto_json::WriteDouble(topology.intra_host_bandwidth_gibps);
  out["inter_host_bandwidth_gibps"] = proto_json::WriteDouble(topology.inter_host_bandwidth_gibps);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Plan

absl::StatusOr<Shard> ReadShard(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields,
      ObjectFields::Read(value, path,
                         {"device", "row_offset", "row_count", "column_offset", "column_count"}));
  Shard shard;
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "device", proto_json::ReadInt32, shard.device));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "row_offset", proto_json::ReadInt64, shard.row_offset));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "row_count", proto_json::ReadInt64, shard.row_count));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "column_offset", proto_json::ReadInt32, shard.column_offset));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "column_count", proto_json::ReadInt32, shard.column_count));
  return shard;
}

absl::StatusOr<TableSharding> ReadTableSharding(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(ObjectFields fields,
                             ObjectFields::Read(value, path, {"table", "sharding_type", "shards"}));
  TableSharding sharding;
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "table", proto_json::ReadString, sharding.table));
  // Absent reads as the proto default, which ReadShardingType rejects by name.
  const json* type = fields.Find("sharding_type");
  SHARDPLAN_ASSIGN_OR_RETURN(
      sharding.sharding_type,
      ReadShardingType(type != nullptr ? *type : json(0), fields.PathOf("sharding_type")));
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "shards", ReadShard, sharding.shards));
  return sharding;
}

absl::StatusOr<DeviceCost> ReadDeviceCost(const json& value, const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields, ObjectFields::Read(value, path,
                                              {"device", "memory_bytes", "memory_capacity_bytes",
                                               "dim_sum", "num_shards", "compute_ms",
                                               "forward_comm_ms", "backward_comm_ms", "total_ms"}));
  DeviceCost cost;
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "device", proto_json::ReadInt32, cost.device));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "memory_bytes", proto_json::ReadInt64, cost.memory_bytes));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "memory_capacity_bytes", proto_json::ReadInt64,
                                      cost.memory_capacity_bytes));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "dim_sum", proto_json::ReadInt64, cost.dim_sum));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "num_shards", proto_json::ReadInt32, cost.num_shards));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "compute_ms", proto_json::ReadDouble, cost.compute_ms));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "forward_comm_ms", proto_json::ReadDouble, cost.forward_comm_ms));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "backward_comm_ms", proto_json::ReadDouble, cost.backward_comm_ms));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "total_ms", proto_json::ReadDouble, cost.total_ms));
  return cost;
}

absl::StatusOr<SearchStats> ReadSearchStats(const json* value) {
  SearchStats stats;
  if (value == nullptr) return stats;
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields,
      ObjectFields::Read(*value, "stats",
                         {"planning_time_ms", "cost_model_calls", "cost_cache_hits",
                          "cost_cache_misses", "candidates_evaluated", "anytime_result"}));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "planning_time_ms", proto_json::ReadDouble, stats.planning_time_ms));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "cost_model_calls", proto_json::ReadInt64, stats.cost_model_calls));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "cost_cache_hits", proto_json::ReadInt64, stats.cost_cache_hits));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "cost_cache_misses", proto_json::ReadInt64, stats.cost_cache_misses));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "candidates_evaluated", proto_json::ReadInt64, stats.candidates_evaluated));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "anytime_result", proto_json::ReadBool, stats.anytime_result));
  return stats;
}

// map<string, string>: keys are data, not field names, so no spelling rules apply.
absl::StatusOr<std::map<std::string, std::string>> ReadStringMap(const json* value,
                                                                 const std::string& path) {
  std::map<std::string, std::string> out;
  if (value == nullptr) return out;
  if (!value->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected an object"));
  }
  for (const auto& [key, entry] : value->items()) {
    SHARDPLAN_ASSIGN_OR_RETURN(out[key],
                               proto_json::ReadString(entry, proto_json::Join(path, key)));
  }
  return out;
}

json ShardingToJson(const TableSharding& sharding) {
  json out = json::object();
  out["table"] = sharding.table;
  out["sharding_type"] = ShardingTypeName(sharding.sharding_type);
  json shards = json::array();
  for (const Shard& shard : sharding.shards) {
    shards.push_back({{"device", shard.device},
                      {"row_offset", shard.row_offset},
                      {"row_count", shard.row_count},
                      {"column_offset", shard.column_offset},
                      {"column_count", shard.column_count}});
  }
  out["shards"] = std::move(shards);
  return out;
}

json DeviceCostToJson(const DeviceCost& cost) {
  return {{"device", cost.device},
          {"memory_bytes", cost.memory_bytes},
          {"memory_capacity_bytes", cost.memory_capacity_bytes},
          {"dim_sum", cost.dim_sum},
          {"num_shards", cost.num_shards},
          {"compute_ms", proto_json::WriteDouble(cost.compute_ms)},
          {"forward_comm_ms", proto_json::WriteDouble(cost.forward_comm_ms)},
          {"backward_comm_ms", proto_json::WriteDouble(cost.backward_comm_ms)},
          {"total_ms", proto_json::WriteDouble(cost.total_ms)}};
}

}  // namespace

const char* ShardingTypeName(ShardingType type) {
  switch (type) {
    case ShardingType::kTableWise:
      return "TABLE_WISE";
    case ShardingType::kColumnWise:
      return "COLUMN_WISE";
    case ShardingType::kRowWise:
      return "ROW_WISE";
    case ShardingType::kDataParallel:
      return "DATA_PARALLEL";
  }
  return "SHARDING_TYPE_UNSPECIFIED";
}

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFp32:
      return "FP32";
    case ElementType::kFp16:
      return "FP16";
    case ElementType::kInt8:
      return "INT8";
  }
  return "ELEMENT_TYPE_UNSPECIFIED";
}

absl::StatusOr<Task> TaskFromJson(const json& value) {
  SHARDPLAN_ASSIGN_OR_RETURN(ObjectFields fields,
                             ObjectFields::Read(value, "",
                                                {"tables", "topology", "batch_size", "colocate",
                                                 "memory", "max_planning_time_ms"}));
  Task task;
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "tables", ReadTable, task.tables));
  SHARDPLAN_ASSIGN_OR_RETURN(task.topology, ReadTopology(fields.Find("topology")));
  task.batch_size = 0;
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "batch_size", proto_json::ReadInt64, task.batch_size));
  if (task.batch_size == 0) task.batch_size = kDefaultBatchSize;
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "colocate", ReadColocationGroup, task.colocate));
  SHARDPLAN_ASSIGN_OR_RETURN(task.memory, ReadMemoryOptions(fields.Find("memory")));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "max_planning_time_ms", proto_json::ReadInt64, task.max_planning_time_ms));
  return task;
}

absl::StatusOr<Task> ParseTaskJson(std::string_view text) {
  // nlohmann reports syntax errors by exception; none may leave this function.
  json value;
  try {
    value = json::parse(text.begin(), text.end());
  } catch (const json::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", error.what()));
  }
  return TaskFromJson(value);
}

json TaskToJson(const Task& task) {
  json out = json::object();
  json tables = json::array();
  for (const Table& table : task.tables) tables.push_back(TableToJson(table));
  out["tables"] = std::move(tables);
  out["topology"] = TopologyToJson(task.topology);
  out["batch_size"] = task.batch_size;
  json colocate = json::array();
  for (const std::vector<std::string>& group : task.colocate) {
    colocate.push_back({{"tables", group}});
  }
  out["colocate"] = std::move(colocate);
  out["memory"] = {
      {"optimizer_state_multiplier",
       proto_json::WriteDouble(task.memory.optimizer_state_multiplier)},
      {"io_buffer_multiplier", proto_json::WriteDouble(task.memory.io_buffer_multiplier)}};
  out["max_planning_time_ms"] = task.max_planning_time_ms;
  return out;
}

absl::StatusOr<Plan> PlanFromJson(const json& value) {
  SHARDPLAN_ASSIGN_OR_RETURN(
      ObjectFields fields,
      ObjectFields::Read(
          value, "",
          {"tables", "devices", "cost_ms", "bottleneck_device", "algorithm", "parameters", "seed",
           "cost_model", "cost_kind", "column_splits", "stats", "request_hash"}));
  Plan plan;
  plan.cost_kind.clear();  // the proto default; "simulated" is only what planners write
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "tables", ReadTableSharding, plan.tables));
  SHARDPLAN_RETURN_IF_ERROR(ReadRepeated(fields, "devices", ReadDeviceCost, plan.devices));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "cost_ms", proto_json::ReadDouble, plan.cost_ms));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "bottleneck_device", proto_json::ReadInt32, plan.bottleneck_device));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "algorithm", proto_json::ReadString, plan.algorithm));
  SHARDPLAN_ASSIGN_OR_RETURN(plan.parameters,
                             ReadStringMap(fields.Find("parameters"), "parameters"));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "seed", proto_json::ReadUint64, plan.seed));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "cost_model", proto_json::ReadString, plan.cost_model));
  SHARDPLAN_RETURN_IF_ERROR(ReadField(fields, "cost_kind", proto_json::ReadString, plan.cost_kind));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadRepeated(fields, "column_splits", proto_json::ReadString, plan.column_splits));
  SHARDPLAN_ASSIGN_OR_RETURN(plan.stats, ReadSearchStats(fields.Find("stats")));
  SHARDPLAN_RETURN_IF_ERROR(
      ReadField(fields, "request_hash", proto_json::ReadString, plan.request_hash));
  return plan;
}

json PlanToJson(const Plan& plan) {
  json out = json::object();
  json tables = json::array();
  for (const TableSharding& sharding : plan.tables) tables.push_back(ShardingToJson(sharding));
  out["tables"] = std::move(tables);
  json devices = json::array();
  for (const DeviceCost& cost : plan.devices) devices.push_back(DeviceCostToJson(cost));
  out["devices"] = std::move(devices);
  out["cost_ms"] = proto_json::WriteDouble(plan.cost_ms);
  out["bottleneck_device"] = plan.bottleneck_device;
  out["algorithm"] = plan.algorithm;
  json parameters = json::object();
  for (const auto& [name, value] : plan.parameters) parameters[name] = value;
  out["parameters"] = std::move(parameters);
  out["seed"] = plan.seed;
  out["cost_model"] = plan.cost_model;
  out["cost_kind"] = plan.cost_kind;
  out["column_splits"] = plan.column_splits;
  out["stats"] = {{"planning_time_ms", proto_json::WriteDouble(plan.stats.planning_time_ms)},
                  {"cost_model_calls", plan.stats.cost_model_calls},
                  {"cost_cache_hits", plan.stats.cost_cache_hits},
                  {"cost_cache_misses", plan.stats.cost_cache_misses},
                  {"candidates_evaluated", plan.stats.candidates_evaluated},
                  {"anytime_result", plan.stats.anytime_result}};
  out["request_hash"] = plan.request_hash;
  return out;
}

}  // namespace shardplan
