#include "wire/task_proto.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_prefix.h"
#include "planner/domain/topology.h"

namespace shardplan::wire {
namespace {

std::string JoinField(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

absl::Status FieldError(const std::string& path, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", reason));
}

// "unknown ElementType 9 (expected one of ELEMENT_TYPE_UNSPECIFIED, FP32, FP16, INT8, ...)", as the
// JSON reader says it for a name.
absl::Status UnknownEnumValue(const google::protobuf::EnumDescriptor& type, int value,
                              absl::string_view path) {
  std::vector<std::string> names;
  for (int i = 0; i < type.value_count(); ++i) names.push_back(type.value(i)->name());
  return FieldError(std::string(path), absl::StrCat("unknown ", type.name(), " ", value,
                                                    " (expected one of ",
                                                    absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<ElementType> ElementTypeFromProto(int value, absl::string_view path) {
  switch (value) {
    case v1::ELEMENT_TYPE_UNSPECIFIED:  // the proto default: FP32
    case v1::FP32:
      return ElementType::kFp32;
    case v1::FP16:
      return ElementType::kFp16;
    case v1::INT8:
      return ElementType::kInt8;
    case v1::BF16:
      return ElementType::kBf16;
    case v1::UINT8:
      return ElementType::kUint8;
    case v1::NFP8:
      return ElementType::kNfp8;
    default:
      return UnknownEnumValue(*v1::ElementType_descriptor(), value, path);
  }
}

v1::ElementType ElementTypeToProto(ElementType type) {
  switch (type) {
    case ElementType::kFp16:
      return v1::FP16;
    case ElementType::kInt8:
      return v1::INT8;
    case ElementType::kBf16:
      return v1::BF16;
    case ElementType::kUint8:
      return v1::UINT8;
    case ElementType::kNfp8:
      return v1::NFP8;
    case ElementType::kFp32:
      break;
  }
  return v1::FP32;
}

absl::Status CheckMultiplier(const std::string& path, double value) {
  if (!std::isfinite(value) || value < 0) {
    return FieldError(path, absl::StrCat("must be a finite number >= 0, got ", value));
  }
  return absl::OkStatus();
}

// What a physical device and link can be: outside these a figure is a typo or an attack
// (bandwidths of 1e-300 GiB/s made costs of 3.9e301 ms), not a cluster. 1 KiB to 1 PiB of
// memory; 1 MiB/s to 100,000 GiB/s of bandwidth (NVLink 5 is about 1,700 GiB/s).
constexpr double kMinDeviceMemoryGiB = 1.0 / (1024 * 1024);
constexpr double kMaxDeviceMemoryGiB = 1024.0 * 1024;
constexpr double kMinBandwidthGiBps = 1.0 / 1024;
constexpr double kMaxBandwidthGiBps = 1e5;
// A second per row fetched: no link is slower (latencies and fetch_cost_us).
constexpr double kMaxFetchCostUs = 1e6;

absl::Status CheckPlausible(const std::string& path, double value, double low, double high,
                            absl::string_view unit) {
  // Non-finite and non-positive values are the domain's to refuse, in its words.
  if (!std::isfinite(value) || value <= 0 || (value >= low && value <= high)) {
    return absl::OkStatus();
  }
  return FieldError(path, absl::StrCat(value, " ", unit, " is not a plausible value (", low, " to ",
                                       high, " ", unit, ")"));
}

// The topology's physical figures are within what hardware can be; 0 bandwidths are defaults.
absl::Status CheckPhysicalTopology(const v1::Topology& topology, absl::string_view path) {
  const std::string at = JoinField(path, "topology");
  if (topology.per_device_memory_gib_size() == 0) {
    if (absl::Status memory =
            CheckPlausible(JoinField(at, "device_memory_gib"), topology.device_memory_gib(),
                           kMinDeviceMemoryGiB, kMaxDeviceMemoryGiB, "GiB");
        !memory.ok()) {
      return memory;
    }
  }
  for (int d = 0; d < topology.per_device_memory_gib_size(); ++d) {
    if (absl::Status memory = CheckPlausible(
            absl::StrCat(JoinField(at, "per_device_memory_gib"), "[", d, "]"),
            topology.per_device_memory_gib(d), kMinDeviceMemoryGiB, kMaxDeviceMemoryGiB, "GiB");
        !memory.ok()) {
      return memory;
    }
  }
  for (const auto& [field, value] :
       {std::pair<const char*, double>{"intra_host_bandwidth_gibps",
                                       topology.intra_host_bandwidth_gibps()},
        {"inter_host_bandwidth_gibps", topology.inter_host_bandwidth_gibps()},
        {"all_reduce_bandwidth_gibps", topology.all_reduce_bandwidth_gibps()}}) {
    if (absl::Status bandwidth = CheckPlausible(JoinField(at, field), value, kMinBandwidthGiBps,
                                                kMaxBandwidthGiBps, "GiB/s");
        !bandwidth.ok()) {
      return bandwidth;
    }
  }
  for (const auto& [field, value] :
       {std::pair<const char*, double>{"intra_host_latency_us", topology.intra_host_latency_us()},
        {"inter_host_latency_us", topology.inter_host_latency_us()}}) {
    if (absl::Status latency =
            CheckPlausible(JoinField(at, field), value, 0.0, kMaxFetchCostUs, "us");
        !latency.ok()) {
      return latency;
    }
  }
  for (int k = 0; k < topology.fetch_cost_us_size(); ++k) {
    if (absl::Status cost =
            CheckPlausible(absl::StrCat(JoinField(at, "fetch_cost_us"), "[", k, "]"),
                           topology.fetch_cost_us(k), 0.0, kMaxFetchCostUs, "us");
        !cost.ok()) {
      return cost;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Optimizer> OptimizerFromProto(int value, const std::string& path) {
  switch (value) {
    case v1::OPTIMIZER_UNSPECIFIED:
      return Optimizer::kUnspecified;
    case v1::SGD:
      return Optimizer::kSgd;
    case v1::ADAM:
      return Optimizer::kAdam;
    case v1::ROWWISE_ADAGRAD:
      return Optimizer::kRowwiseAdagrad;
    case v1::OTHER_OPTIMIZER:
      return Optimizer::kOther;
    default:
      return UnknownEnumValue(*v1::Optimizer_descriptor(), value, path);
  }
}

v1::Optimizer OptimizerToProto(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kUnspecified:
      return v1::OPTIMIZER_UNSPECIFIED;
    case Optimizer::kSgd:
      return v1::SGD;
    case Optimizer::kAdam:
      return v1::ADAM;
    case Optimizer::kRowwiseAdagrad:
      return v1::ROWWISE_ADAGRAD;
    case Optimizer::kOther:
      return v1::OTHER_OPTIMIZER;
  }
  return v1::OPTIMIZER_UNSPECIFIED;
}

absl::StatusOr<Pooling> PoolingFromProto(int value, absl::string_view path) {
  switch (value) {
    case v1::POOLING_UNSPECIFIED:  // the proto default: SUM
    case v1::SUM:
      return Pooling::kSum;
    case v1::SEQUENCE:
      return Pooling::kSequence;
    default:
      return UnknownEnumValue(*v1::Pooling_descriptor(), value, path);
  }
}

absl::StatusOr<Objective> ObjectiveFromProto(int value, absl::string_view path) {
  switch (value) {
    case v1::OBJECTIVE_UNSPECIFIED:  // the proto default: TRAINING
    case v1::TRAINING:
      return Objective::kTraining;
    case v1::INFERENCE:
      return Objective::kInference;
    default:
      return UnknownEnumValue(*v1::Objective_descriptor(), value, path);
  }
}

AccessProfile AccessProfileFromProto(const v1::AccessProfile& proto) {
  AccessProfile profile;
  if (proto.has_top_k()) {
    const v1::AccessProfile::TopK& top_k = proto.top_k();
    profile.top_k = TopKAccessProfile{
        .top_counts = std::vector<double>(top_k.top_counts().begin(), top_k.top_counts().end()),
        .tail_count = top_k.tail_count(),
        .tail_rows = top_k.tail_rows(),
        .top_ids = std::vector<int64_t>(top_k.top_ids().begin(), top_k.top_ids().end())};
  }
  if (proto.has_zipf()) {
    profile.zipf = ZipfAccessProfile{.exponent = proto.zipf().exponent(),
                                     .uniform_share = proto.zipf().uniform_share(),
                                     .active_rows = proto.zipf().active_rows()};
  }
  profile.rows_in_rank_order = proto.rows_in_rank_order();
  return profile;
}

void AccessProfileToProto(const AccessProfile& profile, v1::AccessProfile& proto) {
  if (profile.top_k) {
    v1::AccessProfile::TopK& top_k = *proto.mutable_top_k();
    top_k.mutable_top_counts()->Add(profile.top_k->top_counts.begin(),
                                    profile.top_k->top_counts.end());
    top_k.set_tail_count(profile.top_k->tail_count);
    top_k.set_tail_rows(profile.top_k->tail_rows);
    top_k.mutable_top_ids()->Add(profile.top_k->top_ids.begin(), profile.top_k->top_ids.end());
  }
  if (profile.zipf) {
    v1::AccessProfile::Zipf& zipf = *proto.mutable_zipf();
    zipf.set_exponent(profile.zipf->exponent);
    zipf.set_uniform_share(profile.zipf->uniform_share);
    zipf.set_active_rows(profile.zipf->active_rows);
  }
  proto.set_rows_in_rank_order(profile.rows_in_rank_order);
}

absl::StatusOr<ReplicationBudget> ReplicationBudgetFromProto(const v1::ReplicationBudget& proto,
                                                             const std::string& path) {
  ReplicationBudget budget;
  if (proto.has_extra_gib_per_device()) {
    const double gib = proto.extra_gib_per_device();
    if (!std::isfinite(gib) || std::fabs(gib) > 1e9) {
      return FieldError(JoinField(path, "extra_gib_per_device"),
                        absl::StrCat("must be a finite number of GiB, got ", gib));
    }
    budget.extra_bytes_per_device = std::llround(gib * kBytesPerGiB);
  }
  if (proto.has_capacity_fraction()) budget.capacity_fraction = proto.capacity_fraction();
  return budget;
}

absl::StatusOr<Table> TableFromProto(const v1::Table& proto, const std::string& path) {
  Table table;
  table.name = proto.name();
  table.rows = proto.rows();
  table.dim = proto.dim();
  table.pooling_factor = proto.pooling_factor();
  table.access_bins.assign(proto.access_bins().begin(), proto.access_bins().end());
  absl::StatusOr<ElementType> element_type =
      ElementTypeFromProto(proto.element_type(), JoinField(path, "element_type"));
  if (!element_type.ok()) return element_type.status();
  table.element_type = *element_type;
  for (int i = 0; i < proto.allowed_sharding_types_size(); ++i) {
    absl::StatusOr<ShardingType> type = ShardingTypeFromProto(
        proto.allowed_sharding_types(i), absl::StrCat(path, ".allowed_sharding_types[", i, "]"));
    if (!type.ok()) return type.status();
    table.allowed_sharding_types.push_back(*type);
  }
  if (proto.has_pinned_device()) table.pinned_device = proto.pinned_device();
  table.access_profile = AccessProfileFromProto(proto.access_profile());
  absl::StatusOr<Pooling> pooling = PoolingFromProto(proto.pooling(), JoinField(path, "pooling"));
  if (!pooling.ok()) return pooling.status();
  table.pooling = *pooling;
  return table;
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
    case ShardingType::kTableRowWise:
      return v1::TABLE_ROW_WISE;
  }
  return v1::SHARDING_TYPE_UNSPECIFIED;
}

absl::StatusOr<ShardingType> ShardingTypeFromProto(int value, absl::string_view path) {
  switch (value) {
    case v1::TABLE_WISE:
      return ShardingType::kTableWise;
    case v1::COLUMN_WISE:
      return ShardingType::kColumnWise;
    case v1::ROW_WISE:
      return ShardingType::kRowWise;
    case v1::DATA_PARALLEL:
      return ShardingType::kDataParallel;
    case v1::TABLE_ROW_WISE:
      return ShardingType::kTableRowWise;
    case v1::SHARDING_TYPE_UNSPECIFIED:
      // The proto default carries no meaning in the domain: a plan must say how it shards.
      return FieldError(std::string(path),
                        "must be set (SHARDING_TYPE_UNSPECIFIED is not a sharding type): "
                        "TABLE_WISE, COLUMN_WISE, ROW_WISE, TABLE_ROW_WISE or DATA_PARALLEL");
    default:
      return UnknownEnumValue(*v1::ShardingType_descriptor(), value, path);
  }
}

absl::StatusOr<Task> TaskFromProto(const v1::Task& proto, const TaskLimits& limits,
                                   absl::string_view path) {
  if (proto.tables_size() > limits.max_tables) {
    return absl::ResourceExhaustedError(
        absl::StrCat(JoinField(path, "tables"), ": ", proto.tables_size(),
                     " tables exceed this server's limit of ", limits.max_tables, " (max_tables)"));
  }
  const v1::Topology& topology = proto.topology();
  const int64_t devices =
      std::max<int64_t>(topology.num_devices(), topology.per_device_memory_gib_size());
  if (devices > limits.max_devices) {
    return absl::ResourceExhaustedError(absl::StrCat(
        JoinField(path, "topology.num_devices"), ": ", devices,
        " devices exceed this server's limit of ", limits.max_devices, " (max_devices)"));
  }

  if (absl::Status physical = CheckPhysicalTopology(topology, path); !physical.ok()) {
    return physical;
  }
  Task task;
  task.tables.reserve(proto.tables_size());
  for (int i = 0; i < proto.tables_size(); ++i) {
    absl::StatusOr<Table> table =
        TableFromProto(proto.tables(i), absl::StrCat(JoinField(path, "tables"), "[", i, "]"));
    if (!table.ok()) return table.status();
    task.tables.push_back(*std::move(table));
  }
  absl::StatusOr<Topology> domain_topology =
      MakeTopology(topology.num_devices(), topology.device_memory_gib(),
                   std::vector<double>(topology.per_device_memory_gib().begin(),
                                       topology.per_device_memory_gib().end()),
                   topology.devices_per_host(), topology.intra_host_bandwidth_gibps(),
                   topology.inter_host_bandwidth_gibps(), topology.all_reduce_bandwidth_gibps());
  if (!domain_topology.ok()) {
    return WithPrefix(domain_topology.status(), path.empty() ? "" : absl::StrCat(path, "."));
  }
  task.topology = *std::move(domain_topology);
  task.topology.hardware = topology.hardware();
  task.topology.intra_host_latency_us = topology.intra_host_latency_us();
  task.topology.inter_host_latency_us = topology.inter_host_latency_us();
  task.topology.fetch_cost_us.assign(topology.fetch_cost_us().begin(),
                                     topology.fetch_cost_us().end());
  task.batch_size = proto.batch_size() == 0 ? kDefaultBatchSize : proto.batch_size();
  for (const v1::ColocationGroup& group : proto.colocate()) {
    task.colocate.emplace_back(group.tables().begin(), group.tables().end());
  }
  absl::Status status = CheckMultiplier(JoinField(path, "memory.optimizer_state_multiplier"),
                                        proto.memory().optimizer_state_multiplier());
  if (!status.ok()) return status;
  status = CheckMultiplier(JoinField(path, "memory.io_buffer_multiplier"),
                           proto.memory().io_buffer_multiplier());
  if (!status.ok()) return status;
  task.memory.optimizer_state_multiplier = proto.memory().optimizer_state_multiplier();
  task.memory.io_buffer_multiplier = proto.memory().io_buffer_multiplier();
  // ValidateTask refuses a fraction outside [0, 1); ReserveStorage leaves the capacities alone.
  task.memory.storage_reservation = proto.memory().storage_reservation();
  ReserveStorage(task.memory.storage_reservation, task.topology);
  absl::StatusOr<Optimizer> optimizer =
      OptimizerFromProto(proto.memory().optimizer(), JoinField(path, "memory.optimizer"));
  if (!optimizer.ok()) return optimizer.status();
  task.memory.optimizer = *optimizer;
  if (proto.max_planning_time_ms() < 0) {
    return FieldError(
        JoinField(path, "max_planning_time_ms"),
        absl::StrCat("must be >= 0 (0: no limit), got ", proto.max_planning_time_ms()));
  }
  task.max_planning_time_ms = proto.max_planning_time_ms();
  absl::StatusOr<Objective> objective =
      ObjectiveFromProto(proto.objective(), JoinField(path, "objective"));
  if (!objective.ok()) return objective.status();
  task.objective = *objective;
  absl::StatusOr<ReplicationBudget> budget =
      ReplicationBudgetFromProto(proto.replication_budget(), JoinField(path, "replication_budget"));
  if (!budget.ok()) return budget.status();
  task.replication_budget = *budget;
  return task;
}

v1::Task TaskToProto(const Task& task) {
  v1::Task proto;
  for (const Table& table : task.tables) {
    v1::Table* out = proto.add_tables();
    out->set_name(table.name);
    out->set_rows(table.rows);
    out->set_dim(table.dim);
    out->set_pooling_factor(table.pooling_factor);
    out->mutable_access_bins()->Add(table.access_bins.begin(), table.access_bins.end());
    out->set_element_type(ElementTypeToProto(table.element_type));
    for (ShardingType type : table.allowed_sharding_types) {
      out->add_allowed_sharding_types(ShardingTypeToProto(type));
    }
    if (table.pinned_device) out->set_pinned_device(*table.pinned_device);
    // Defaults stay unset, so that the bytes (and the cache keys hashed from them) of a task
    // that uses none of these are what they were before they existed.
    if (table.access_profile.has_curve() || table.access_profile.rows_in_rank_order) {
      AccessProfileToProto(table.access_profile, *out->mutable_access_profile());
    }
    if (table.pooling == Pooling::kSequence) out->set_pooling(v1::SEQUENCE);
  }
  v1::Topology* topology = proto.mutable_topology();
  // The capacities the task named: the decoder applies the reservation again.
  const std::vector<int64_t>& bytes = task.topology.named_memory_bytes();
  topology->set_num_devices(task.topology.num_devices());
  // bytes / 2^30 is exact in a double, so MakeTopology's rounding gives the bytes back.
  if (!bytes.empty() && std::all_of(bytes.begin(), bytes.end(),
                                    [&](int64_t b) { return b == bytes.front(); })) {
    topology->set_device_memory_gib(static_cast<double>(bytes.front()) / kBytesPerGiB);
  } else {
    for (int64_t b : bytes) {
      topology->add_per_device_memory_gib(static_cast<double>(b) / kBytesPerGiB);
    }
  }
  topology->set_devices_per_host(task.topology.devices_per_host);
  topology->set_intra_host_bandwidth_gibps(task.topology.intra_host_bandwidth_gibps);
  topology->set_inter_host_bandwidth_gibps(task.topology.inter_host_bandwidth_gibps);
  topology->set_all_reduce_bandwidth_gibps(task.topology.all_reduce_bandwidth_gibps);
  topology->set_hardware(task.topology.hardware);
  topology->set_intra_host_latency_us(task.topology.intra_host_latency_us);
  topology->set_inter_host_latency_us(task.topology.inter_host_latency_us);
  topology->mutable_fetch_cost_us()->Add(task.topology.fetch_cost_us.begin(),
                                         task.topology.fetch_cost_us.end());
  proto.set_batch_size(task.batch_size);
  for (const std::vector<std::string>& group : task.colocate) {
    proto.add_colocate()->mutable_tables()->Add(group.begin(), group.end());
  }
  proto.mutable_memory()->set_optimizer_state_multiplier(task.memory.optimizer_state_multiplier);
  proto.mutable_memory()->set_io_buffer_multiplier(task.memory.io_buffer_multiplier);
  proto.mutable_memory()->set_storage_reservation(task.memory.storage_reservation);
  proto.mutable_memory()->set_optimizer(OptimizerToProto(task.memory.optimizer));
  proto.set_max_planning_time_ms(task.max_planning_time_ms);
  if (task.objective == Objective::kInference) proto.set_objective(v1::INFERENCE);
  const ReplicationBudget& budget = task.replication_budget;
  if (budget.extra_bytes_per_device) {
    proto.mutable_replication_budget()->set_extra_gib_per_device(
        static_cast<double>(*budget.extra_bytes_per_device) / kBytesPerGiB);
  }
  if (budget.capacity_fraction) {
    proto.mutable_replication_budget()->set_capacity_fraction(*budget.capacity_fraction);
  }
  return proto;
}

}  // namespace shardplan::wire
