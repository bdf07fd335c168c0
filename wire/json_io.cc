#include "wire/json_io.h"

#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "wire/proto_json.h"

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

// One field of a JSON object: its snake_case name, the reader of its value and where the value
// goes. ReadObject below reads a whole object from a list of these.
template <typename T, typename Reader>
struct FieldSpec {
  absl::string_view name;
  Reader reader;  // (const json&, const std::string& path) -> absl::StatusOr<T>
  T* out;
  // Absent (or null) fields leave *out at its default, unless this is set: then the reader reads
  // it, so that it can reject a missing field by name.
  const json* if_absent = nullptr;
};

template <typename T, typename Reader>
FieldSpec<T, Reader> Field(absl::string_view name, Reader reader, T& out) {
  return {name, std::move(reader), &out};
}

// A reader of a repeated field from the reader of its elements: element i is read as "path[i]".
template <typename ElementReader>
auto Repeated(ElementReader element_reader) {
  using Element =
      typename std::invoke_result_t<ElementReader, const json&, const std::string&>::value_type;
  return [element_reader](const json& value,
                          const std::string& path) -> absl::StatusOr<std::vector<Element>> {
    SHARDPLAN_ASSIGN_OR_RETURN(std::vector<const json*> elements,
                               proto_json::ReadArray(value, path));
    std::vector<Element> out;
    out.reserve(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) {
      SHARDPLAN_ASSIGN_OR_RETURN(Element element, element_reader(*elements[i], Index(path, i)));
      out.push_back(std::move(element));
    }
    return out;
  };
}

template <typename T, typename Reader>
absl::Status ReadOneField(const ObjectFields& fields, const FieldSpec<T, Reader>& spec) {
  const json* value = fields.Find(spec.name);
  if (value == nullptr) value = spec.if_absent;
  if (value == nullptr) return absl::OkStatus();
  SHARDPLAN_ASSIGN_OR_RETURN(*spec.out, spec.reader(*value, fields.PathOf(spec.name)));
  return absl::OkStatus();
}

// Reads the object `value` (null: an empty object) at `path` into the fields' destinations:
// unknown names are errors, then the fields are read in the order given; the first error wins.
template <typename... Specs>
absl::Status ReadObject(const json& value, std::string path, const Specs&... specs) {
  SHARDPLAN_ASSIGN_OR_RETURN(ObjectFields fields,
                             ObjectFields::Read(value, std::move(path), {specs.name...}));
  absl::Status status;
  (void)((status = ReadOneField(fields, specs)).ok() && ...);
  return status;
}

// ---------------------------------------------------------------------------------------------
// Task

absl::StatusOr<Table> ReadTable(const json& value, const std::string& path) {
  Table table;
  SHARDPLAN_RETURN_IF_ERROR(ReadObject(
      value, path, Field("name", proto_json::ReadString, table.name),
      Field("rows", proto_json::ReadInt64, table.rows),
      Field("dim", proto_json::ReadInt32, table.dim),
      Field("pooling_factor", proto_json::ReadDouble, table.pooling_factor),
      Field("access_bins", Repeated(proto_json::ReadDouble), table.access_bins),
      Field("element_type", ReadElementType, table.element_type),
      Field("allowed_sharding_types", Repeated(ReadShardingType), table.allowed_sharding_types),
      Field("pinned_device", proto_json::ReadInt32, table.pinned_device)));
  return table;
}

absl::StatusOr<Topology> ReadTopology(const json& value, const std::string& path) {
  int64_t num_devices = 0;
  double device_memory_gib = 0;
  std::vector<double> per_device_memory_gib;
  int64_t devices_per_host = 0;
  double intra_host_bandwidth_gibps = 0;
  double inter_host_bandwidth_gibps = 0;
  SHARDPLAN_RETURN_IF_ERROR(ReadObject(
      value, path, Field("num_devices", proto_json::ReadInt32, num_devices),
      Field("device_memory_gib", proto_json::ReadDouble, device_memory_gib),
      Field("per_device_memory_gib", Repeated(proto_json::ReadDouble), per_device_memory_gib),
      Field("devices_per_host", proto_json::ReadInt32, devices_per_host),
      Field("intra_host_bandwidth_gibps", proto_json::ReadDouble, intra_host_bandwidth_gibps),
      Field("inter_host_bandwidth_gibps", proto_json::ReadDouble, inter_host_bandwidth_gibps)));
  return MakeTopology(num_devices, device_memory_gib, per_device_memory_gib, devices_per_host,
                      intra_host_bandwidth_gibps, inter_host_bandwidth_gibps);
}

absl::StatusOr<std::vector<std::string>> ReadColocationGroup(const json& value,
                                                             const std::string& path) {
  std::vector<std::string> tables;
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, path, Field("tables", Repeated(proto_json::ReadString), tables)));
  return tables;
}

absl::StatusOr<MemoryOptions> ReadMemoryOptions(const json& value, const std::string& path) {
  MemoryOptions options;
  SHARDPLAN_RETURN_IF_ERROR(ReadObject(
      value, path,
      Field("optimizer_state_multiplier", proto_json::ReadDouble,
            options.optimizer_state_multiplier),
      Field("io_buffer_multiplier", proto_json::ReadDouble, options.io_buffer_multiplier)));
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
  Shard shard;
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, path, Field("device", proto_json::ReadInt32, shard.device),
                 Field("row_offset", proto_json::ReadInt64, shard.row_offset),
                 Field("row_count", proto_json::ReadInt64, shard.row_count),
                 Field("column_offset", proto_json::ReadInt32, shard.column_offset),
                 Field("column_count", proto_json::ReadInt32, shard.column_count)));
  return shard;
}

absl::StatusOr<TableSharding> ReadTableSharding(const json& value, const std::string& path) {
  // Absent reads as the proto default, which ReadShardingType rejects by name.
  static const json* const kUnspecified = new json(0);
  TableSharding sharding;
  auto sharding_type = Field("sharding_type", ReadShardingType, sharding.sharding_type);
  sharding_type.if_absent = kUnspecified;
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, path, Field("table", proto_json::ReadString, sharding.table), sharding_type,
                 Field("shards", Repeated(ReadShard), sharding.shards)));
  return sharding;
}

absl::StatusOr<DeviceCost> ReadDeviceCost(const json& value, const std::string& path) {
  DeviceCost cost;
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, path, Field("device", proto_json::ReadInt32, cost.device),
                 Field("memory_bytes", proto_json::ReadInt64, cost.memory_bytes),
                 Field("memory_capacity_bytes", proto_json::ReadInt64, cost.memory_capacity_bytes),
                 Field("dim_sum", proto_json::ReadInt64, cost.dim_sum),
                 Field("num_shards", proto_json::ReadInt32, cost.num_shards),
                 Field("compute_ms", proto_json::ReadDouble, cost.compute_ms),
                 Field("forward_comm_ms", proto_json::ReadDouble, cost.forward_comm_ms),
                 Field("backward_comm_ms", proto_json::ReadDouble, cost.backward_comm_ms),
                 Field("total_ms", proto_json::ReadDouble, cost.total_ms)));
  return cost;
}

absl::StatusOr<SearchStats> ReadSearchStats(const json& value, const std::string& path) {
  SearchStats stats;
  SHARDPLAN_RETURN_IF_ERROR(ReadObject(
      value, path, Field("planning_time_ms", proto_json::ReadDouble, stats.planning_time_ms),
      Field("cost_model_calls", proto_json::ReadInt64, stats.cost_model_calls),
      Field("cost_cache_hits", proto_json::ReadInt64, stats.cost_cache_hits),
      Field("cost_cache_misses", proto_json::ReadInt64, stats.cost_cache_misses),
      Field("candidates_evaluated", proto_json::ReadInt64, stats.candidates_evaluated),
      Field("anytime_result", proto_json::ReadBool, stats.anytime_result)));
  return stats;
}

absl::StatusOr<PlanWarning> ReadPlanWarning(const json& value, const std::string& path) {
  PlanWarning warning;
  SHARDPLAN_RETURN_IF_ERROR(ReadObject(value, path,
                                       Field("code", proto_json::ReadString, warning.code),
                                       Field("field", proto_json::ReadString, warning.field),
                                       Field("message", proto_json::ReadString, warning.message)));
  return warning;
}

// map<string, string>: keys are data, not field names, so no spelling rules apply.
absl::StatusOr<std::map<std::string, std::string>> ReadStringMap(const json& value,
                                                                 const std::string& path) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected an object"));
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, entry] : value.items()) {
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

absl::StatusOr<Task> TaskFromJson(const json& value) {
  Task task;
  task.batch_size = 0;  // the proto default, which means kDefaultBatchSize
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, "", Field("tables", Repeated(ReadTable), task.tables),
                 Field("topology", ReadTopology, task.topology),
                 Field("batch_size", proto_json::ReadInt64, task.batch_size),
                 Field("colocate", Repeated(ReadColocationGroup), task.colocate),
                 Field("memory", ReadMemoryOptions, task.memory),
                 Field("max_planning_time_ms", proto_json::ReadInt64, task.max_planning_time_ms)));
  if (task.batch_size == 0) task.batch_size = kDefaultBatchSize;
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
  Plan plan;
  plan.cost_kind.clear();  // the proto default; "simulated" is only what planners write
  SHARDPLAN_RETURN_IF_ERROR(
      ReadObject(value, "", Field("tables", Repeated(ReadTableSharding), plan.tables),
                 Field("devices", Repeated(ReadDeviceCost), plan.devices),
                 Field("cost_ms", proto_json::ReadDouble, plan.cost_ms),
                 Field("bottleneck_device", proto_json::ReadInt32, plan.bottleneck_device),
                 Field("algorithm", proto_json::ReadString, plan.algorithm),
                 Field("parameters", ReadStringMap, plan.parameters),
                 Field("seed", proto_json::ReadUint64, plan.seed),
                 Field("cost_model", proto_json::ReadString, plan.cost_model),
                 Field("cost_kind", proto_json::ReadString, plan.cost_kind),
                 // stats first: reading it replaces the whole SearchStats.
                 Field("stats", ReadSearchStats, plan.stats),
                 Field("column_splits", Repeated(proto_json::ReadString),
                       plan.stats.column_splits),
                 Field("request_hash", proto_json::ReadString, plan.request_hash),
                 Field("selection", proto_json::ReadString, plan.selection),
                 Field("warnings", Repeated(ReadPlanWarning), plan.warnings)));
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
  out["column_splits"] = plan.stats.column_splits;
  out["stats"] = {{"planning_time_ms", proto_json::WriteDouble(plan.stats.planning_time_ms)},
                  {"cost_model_calls", plan.stats.cost_model_calls},
                  {"cost_cache_hits", plan.stats.cost_cache_hits},
                  {"cost_cache_misses", plan.stats.cost_cache_misses},
                  {"candidates_evaluated", plan.stats.candidates_evaluated},
                  {"anytime_result", plan.stats.anytime_result}};
  out["request_hash"] = plan.request_hash;
  out["selection"] = plan.selection;
  json warnings = json::array();
  for (const PlanWarning& warning : plan.warnings) {
    warnings.push_back(
        {{"code", warning.code}, {"field", warning.field}, {"message", warning.message}});
  }
  out["warnings"] = std::move(warnings);
  return out;
}

}  // namespace shardplan
