#include "server/proto_conversion.h"

#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/status_conversion.h"

namespace shardplan {
namespace {

absl::Status FieldError(const std::string& field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", reason));
}

absl::StatusOr<ElementType> ElementTypeFromProto(int value, const std::string& field) {
  switch (value) {
    case v1::ELEMENT_TYPE_UNSPECIFIED:
    case v1::FP32:
      return ElementType::kFp32;
    case v1::FP16:
      return ElementType::kFp16;
    case v1::INT8:
      return ElementType::kInt8;
    default:
      return FieldError(
          field, absl::StrCat("unknown element type ", value, "; expected FP32, FP16 or INT8"));
  }
}

absl::StatusOr<ShardingType> ShardingTypeFromProto(int value, const std::string& field) {
  switch (value) {
    case v1::TABLE_WISE:
      return ShardingType::kTableWise;
    case v1::COLUMN_WISE:
      return ShardingType::kColumnWise;
    case v1::ROW_WISE:
      return ShardingType::kRowWise;
    case v1::DATA_PARALLEL:
      return ShardingType::kDataParallel;
    case v1::SHARDING_TYPE_UNSPECIFIED:
      return FieldError(field, "must be set: TABLE_WISE, COLUMN_WISE, ROW_WISE or DATA_PARALLEL");
    default:
      return FieldError(field, absl::StrCat("unknown sharding type ", value));
  }
}

absl::Status CheckMultiplier(const std::string& field, double value) {
  if (!std::isfinite(value) || value < 0) {
    return FieldError(field, absl::StrCat("must be a finite number >= 0, got ", value));
  }
  return absl::OkStatus();
}

absl::StatusOr<Table> TableFromProto(const v1::Table& proto, const std::string& field) {
  Table table;
  table.name = proto.name();
  table.rows = proto.rows();
  table.dim = proto.dim();
  table.pooling_factor = proto.pooling_factor();
  table.access_bins.assign(proto.access_bins().begin(), proto.access_bins().end());
  absl::StatusOr<ElementType> element_type =
      ElementTypeFromProto(proto.element_type(), field + ".element_type");
  if (!element_type.ok()) return element_type.status();
  table.element_type = *element_type;
  for (int i = 0; i < proto.allowed_sharding_types_size(); ++i) {
    absl::StatusOr<ShardingType> type = ShardingTypeFromProto(
        proto.allowed_sharding_types(i), absl::StrCat(field, ".allowed_sharding_types[", i, "]"));
    if (!type.ok()) return type.status();
    table.allowed_sharding_types.push_back(*type);
  }
  if (proto.has_pinned_device()) table.pinned_device = proto.pinned_device();
  return table;
}

// Bounds in the spelling of their parameter's type: "100000000", not "1e+08".
std::string FormatBound(ParamType type, double value) {
  if (type == ParamType::kInt && std::abs(value) < 9.2e18) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return error == std::errc() ? std::string(buffer, end) : absl::StrCat(value);
}

}  // namespace

v1::ShardingType ShardingTypeToProto(ShardingType type) {
  switch (type) {
    case ShardingType::kTableWise:
      return v1::TABLE_WISE;
    case ShardingType::kColumnWise:
      return v1::COLUMN_WISE;
    case ShardingType::kRowWise:
      return v1::ROW_WISE;
    case ShardingType::kDataParallel:
      return v1::DATA_PARALLEL;
  }
  return v1::SHARDING_TYPE_UNSPECIFIED;
}

absl::StatusOr<Task> TaskFromProto(const v1::Task& proto, const TaskLimits& limits) {
  if (proto.tables_size() > limits.max_tables) {
    return absl::ResourceExhaustedError(absl::StrCat("task.tables: ", proto.tables_size(),
                                                     " tables exceed this server's limit of ",
                                                     limits.max_tables, " (max_tables)"));
  }
  const v1::Topology& topology = proto.topology();
  const int64_t devices =
      std::max<int64_t>(topology.num_devices(), topology.per_device_memory_gib_size());
  if (devices > limits.max_devices) {
    return absl::ResourceExhaustedError(absl::StrCat("task.topology.num_devices: ", devices,
                                                     " devices exceed this server's limit of ",
                                                     limits.max_devices, " (max_devices)"));
  }

  Task task;
  task.tables.reserve(proto.tables_size());
  for (int i = 0; i < proto.tables_size(); ++i) {
    absl::StatusOr<Table> table =
        TableFromProto(proto.tables(i), absl::StrCat("task.tables[", i, "]"));
    if (!table.ok()) return table.status();
    task.tables.push_back(*std::move(table));
  }
  absl::StatusOr<Topology> domain_topology =
      MakeTopology(topology.num_devices(), topology.device_memory_gib(),
                   std::vector<double>(topology.per_device_memory_gib().begin(),
                                       topology.per_device_memory_gib().end()),
                   topology.devices_per_host(), topology.intra_host_bandwidth_gibps(),
                   topology.inter_host_bandwidth_gibps());
  if (!domain_topology.ok()) return WithPrefix(domain_topology.status(), "task.");
  task.topology = *std::move(domain_topology);
  task.batch_size = proto.batch_size() == 0 ? kDefaultBatchSize : proto.batch_size();
  for (const v1::ColocationGroup& group : proto.colocate()) {
    task.colocate.emplace_back(group.tables().begin(), group.tables().end());
  }
  absl::Status status = CheckMultiplier("task.memory.optimizer_state_multiplier",
                                        proto.memory().optimizer_state_multiplier());
  if (!status.ok()) return status;
  status =
      CheckMultiplier("task.memory.io_buffer_multiplier", proto.memory().io_buffer_multiplier());
  if (!status.ok()) return status;
  task.memory.optimizer_state_multiplier = proto.memory().optimizer_state_multiplier();
  task.memory.io_buffer_multiplier = proto.memory().io_buffer_multiplier();
  if (proto.max_planning_time_ms() < 0) {
    return FieldError("task.max_planning_time_ms", absl::StrCat("must be >= 0 (0: no limit), got ",
                                                                proto.max_planning_time_ms()));
  }
  task.max_planning_time_ms = proto.max_planning_time_ms();
  return task;
}

absl::StatusOr<PlanningRequest> PlanningRequestFromProto(const v1::PlanRequest& proto,
                                                         const TaskLimits& limits) {
  absl::StatusOr<Task> task = TaskFromProto(proto.task(), limits);
  if (!task.ok()) return task.status();
  PlanningRequest request;
  request.task = *std::move(task);
  request.algorithm = proto.algorithm();
  request.params =
      std::map<std::string, std::string>(proto.parameters().begin(), proto.parameters().end());
  request.seed = proto.seed();
  request.model = proto.model();
  request.bypass_cache = proto.bypass_cache();
  return request;
}

absl::StatusOr<Plan> PlanShardsFromProto(const v1::Plan& proto) {
  Plan plan;
  plan.tables.reserve(proto.tables_size());
  for (int i = 0; i < proto.tables_size(); ++i) {
    const v1::TableSharding& table = proto.tables(i);
    const std::string field = absl::StrCat("plan.tables[", i, "]");
    TableSharding sharding;
    sharding.table = table.table();
    absl::StatusOr<ShardingType> type =
        ShardingTypeFromProto(table.sharding_type(), field + ".sharding_type");
    if (!type.ok()) return type.status();
    sharding.sharding_type = *type;
    if (table.shards_size() == 0) return FieldError(field + ".shards", "must not be empty");
    for (const v1::Shard& shard : table.shards()) {
      sharding.shards.push_back(Shard{shard.device(), shard.row_offset(), shard.row_count(),
                                      shard.column_offset(), shard.column_count()});
    }
    plan.tables.push_back(std::move(sharding));
  }
  return plan;
}

void PlanToProto(const Plan& plan, v1::Plan* proto) {
  proto->Clear();
  for (const TableSharding& table : plan.tables) {
    v1::TableSharding* out = proto->add_tables();
    out->set_table(table.table);
    out->set_sharding_type(ShardingTypeToProto(table.sharding_type));
    for (const Shard& shard : table.shards) {
      v1::Shard* s = out->add_shards();
      s->set_device(shard.device);
      s->set_row_offset(shard.row_offset);
      s->set_row_count(shard.row_count);
      s->set_column_offset(shard.column_offset);
      s->set_column_count(shard.column_count);
    }
  }
  for (const DeviceCost& device : plan.devices) {
    v1::DeviceCost* out = proto->add_devices();
    out->set_device(device.device);
    out->set_memory_bytes(device.memory_bytes);
    out->set_memory_capacity_bytes(device.memory_capacity_bytes);
    out->set_dim_sum(device.dim_sum);
    out->set_num_shards(device.num_shards);
    out->set_compute_ms(device.compute_ms);
    out->set_forward_comm_ms(device.forward_comm_ms);
    out->set_backward_comm_ms(device.backward_comm_ms);
    out->set_total_ms(device.total_ms);
  }
  proto->set_cost_ms(plan.cost_ms);
  proto->set_bottleneck_device(plan.bottleneck_device);
  proto->set_algorithm(plan.algorithm);
  proto->mutable_parameters()->insert(plan.parameters.begin(), plan.parameters.end());
  proto->set_seed(plan.seed);
  proto->set_cost_model(plan.cost_model);
  proto->set_cost_kind(plan.cost_kind);
  for (const std::string& split : plan.stats.column_splits) proto->add_column_splits(split);
  v1::SearchStats* stats = proto->mutable_stats();
  stats->set_planning_time_ms(plan.stats.planning_time_ms);
  stats->set_cost_model_calls(plan.stats.cost_model_calls);
  stats->set_cost_cache_hits(plan.stats.cost_cache_hits);
  stats->set_cost_cache_misses(plan.stats.cost_cache_misses);
  stats->set_candidates_evaluated(plan.stats.candidates_evaluated);
  stats->set_anytime_result(plan.stats.anytime_result);
  proto->set_request_hash(plan.request_hash);
  proto->set_selection(plan.selection);
  for (const PlanWarning& warning : plan.warnings) {
    v1::PlanWarning* out = proto->add_warnings();
    out->set_code(warning.code);
    out->set_field(warning.field);
    out->set_message(warning.message);
  }
}

void AlgorithmInfoToProto(const AlgorithmInfo& info, bool is_default, v1::AlgorithmInfo* proto) {
  proto->set_name(info.name);
  proto->set_description(info.description);
  for (const ParamSpec& spec : info.params) {
    v1::AlgorithmParameter* param = proto->add_parameters();
    param->set_name(spec.name);
    param->set_type(ParamTypeName(spec.type));
    param->set_default_value(spec.default_value);
    param->set_description(spec.description);
    if (spec.min_value) param->set_min_value(FormatBound(spec.type, *spec.min_value));
    if (spec.max_value) param->set_max_value(FormatBound(spec.type, *spec.max_value));
  }
  for (ShardingType type : info.sharding_types) {
    proto->add_sharding_types(ShardingTypeToProto(type));
  }
  proto->set_uses_cost_model(info.uses_cost_model);
  proto->set_is_default(is_default);
}

void ModelEntryToProto(const ModelRegistry::Entry& entry, v1::ModelInfo* proto) {
  const ModelManifest& manifest = entry.manifest;
  proto->set_name(manifest.name);
  proto->set_version(manifest.version);
  proto->set_kind(manifest.kind);
  proto->set_hardware_profile(manifest.hardware_profile);
  proto->set_backend(manifest.backend);
  proto->set_data_size(manifest.data_size);
  proto->mutable_test_mse()->insert(manifest.test_mse.begin(), manifest.test_mse.end());
  proto->set_created(manifest.created);
  for (int32_t count : manifest.device_counts) proto->add_device_counts(count);
  proto->set_is_default(entry.is_default);
  proto->set_is_latest(entry.is_latest);
  proto->set_description(manifest.description);
}

void JobSnapshotToProto(const JobSnapshot& job, v1::JobStatus* proto) {
  proto->Clear();
  proto->set_job_id(job.id);
  proto->set_job_key(job.job_key);
  switch (job.state) {
    case JobState::kQueued:
      proto->set_state(v1::QUEUED);
      break;
    case JobState::kRunning:
      proto->set_state(v1::RUNNING);
      break;
    case JobState::kSucceeded:
      proto->set_state(v1::SUCCEEDED);
      break;
    case JobState::kFailed:
      proto->set_state(v1::FAILED);
      break;
    case JobState::kCancelled:
      proto->set_state(v1::CANCELLED);
      break;
  }
  if (job.result != nullptr) {
    PlanToProto(job.result->plan, proto->mutable_result()->mutable_plan());
    proto->mutable_result()->set_cache_hit(job.result->cache_hit);
    proto->mutable_result()->set_job_id(job.id);
  }
  if (!job.error.ok()) {
    const grpc::Status error = ToGrpcStatus(job.error);
    proto->set_error_code(static_cast<int32_t>(error.error_code()));
    proto->set_error_message(error.error_message());
  }
  proto->set_progress(job.progress);
  proto->set_progress_fraction(job.progress_fraction);
  proto->set_submitted_unix_ms(job.submitted_unix_ms);
  proto->set_started_unix_ms(job.started_unix_ms);
  proto->set_finished_unix_ms(job.finished_unix_ms);
}

}  // namespace shardplan
