#include "wire/plan_proto.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "wire/task_proto.h"

namespace shardplan::wire {
namespace {

std::string Join(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

// The tables; `require_shards`: a table without shards is an error (it covers nothing).
absl::StatusOr<std::vector<TableSharding>> ShardingsFromProto(const v1::Plan& proto,
                                                              absl::string_view path,
                                                              bool require_shards) {
  std::vector<TableSharding> tables;
  tables.reserve(proto.tables_size());
  for (int i = 0; i < proto.tables_size(); ++i) {
    const v1::TableSharding& table = proto.tables(i);
    const std::string field = absl::StrCat(Join(path, "tables"), "[", i, "]");
    TableSharding sharding;
    sharding.table = table.table();
    absl::StatusOr<ShardingType> type =
        ShardingTypeFromProto(table.sharding_type(), field + ".sharding_type");
    if (!type.ok()) return type.status();
    sharding.sharding_type = *type;
    if (require_shards && table.shards_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".shards: must not be empty"));
    }
    for (const v1::Shard& shard : table.shards()) {
      sharding.shards.push_back(Shard{shard.device(), shard.row_offset(), shard.row_count(),
                                      shard.column_offset(), shard.column_count()});
    }
    switch (table.row_layout().row_order()) {
      case v1::NATURAL:
        sharding.row_order = RowOrder::kNatural;
        break;
      case v1::FREQUENCY_RANK:
        sharding.row_order = RowOrder::kFrequencyRank;
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".row_layout.row_order: invalid value ", static_cast<int>(table.row_layout().row_order()),
            " (NATURAL or FREQUENCY_RANK)"));
    }
    sharding.rank_bands.assign(table.row_layout().rank_bands().begin(),
                               table.row_layout().rank_bands().end());
    sharding.hot_row_ids.assign(table.row_layout().hot_row_ids().begin(),
                                table.row_layout().hot_row_ids().end());
    for (const v1::RowRoute& route : table.row_layout().routes()) {
      sharding.routes.push_back(RowRoute{.requester = route.requester(), .shard = route.shard()});
    }
    tables.push_back(std::move(sharding));
  }
  return tables;
}

}  // namespace

v1::Plan PlanToProto(const Plan& plan) {
  v1::Plan proto;
  for (const TableSharding& table : plan.tables) {
    v1::TableSharding* out = proto.add_tables();
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
    // Only a layout beyond the default is written (RowLayout's comment says why).
    if (table.row_order != RowOrder::kNatural || !table.routes.empty() ||
        !table.rank_bands.empty() || !table.hot_row_ids.empty()) {
      v1::RowLayout* layout = out->mutable_row_layout();
      layout->set_row_order(table.row_order == RowOrder::kFrequencyRank ? v1::FREQUENCY_RANK
                                                                       : v1::NATURAL);
      for (int64_t band : table.rank_bands) layout->add_rank_bands(band);
      layout->mutable_hot_row_ids()->Add(table.hot_row_ids.begin(), table.hot_row_ids.end());
      for (const RowRoute& route : table.routes) {
        v1::RowRoute* r = layout->add_routes();
        r->set_requester(route.requester);
        r->set_shard(route.shard);
      }
    }
  }
  for (const DeviceCost& device : plan.devices) {
    v1::DeviceCost* out = proto.add_devices();
    out->set_device(device.device);
    out->set_memory_bytes(device.memory_bytes);
    out->set_memory_capacity_bytes(device.memory_capacity_bytes);
    out->set_dim_sum(device.dim_sum);
    out->set_num_shards(device.num_shards);
    out->set_compute_ms(device.compute_ms);
    out->set_forward_comm_ms(device.forward_comm_ms);
    out->set_backward_comm_ms(device.backward_comm_ms);
    out->set_total_ms(device.total_ms);
    out->set_sequence_buffer_bytes(device.sequence_buffer_bytes);
  }
  proto.set_cost_ms(plan.cost_ms);
  proto.set_bottleneck_device(plan.bottleneck_device);
  proto.set_algorithm(plan.algorithm);
  proto.mutable_parameters()->insert(plan.parameters.begin(), plan.parameters.end());
  proto.set_seed(plan.seed);
  proto.set_cost_model(plan.cost_model);
  proto.set_cost_kind(plan.cost_kind);
  proto.set_local_world_size(plan.local_world_size);
  proto.mutable_column_splits()->Add(plan.stats.column_splits.begin(),
                                     plan.stats.column_splits.end());
  v1::SearchStats* stats = proto.mutable_stats();
  stats->set_planning_time_ms(plan.stats.planning_time_ms);
  stats->set_cost_model_calls(plan.stats.cost_model_calls);
  stats->set_cost_cache_hits(plan.stats.cost_cache_hits);
  stats->set_cost_cache_misses(plan.stats.cost_cache_misses);
  stats->set_candidates_evaluated(plan.stats.candidates_evaluated);
  stats->set_anytime_result(plan.stats.anytime_result);
  return proto;
}

absl::StatusOr<Plan> PlanShardsFromProto(const v1::Plan& proto, absl::string_view path) {
  absl::StatusOr<std::vector<TableSharding>> tables =
      ShardingsFromProto(proto, path, /*require_shards=*/true);
  if (!tables.ok()) return tables.status();
  Plan plan;
  plan.tables = *std::move(tables);
  return plan;
}

absl::StatusOr<Plan> PlanFromProto(const v1::Plan& proto, absl::string_view path) {
  absl::StatusOr<std::vector<TableSharding>> tables =
      ShardingsFromProto(proto, path, /*require_shards=*/false);
  if (!tables.ok()) return tables.status();
  Plan plan;
  plan.tables = *std::move(tables);
  for (const v1::DeviceCost& device : proto.devices()) {
    plan.devices.push_back(DeviceCost{
        .device = device.device(),
        .memory_bytes = device.memory_bytes(),
        .memory_capacity_bytes = device.memory_capacity_bytes(),
        .dim_sum = device.dim_sum(),
        .num_shards = device.num_shards(),
        .compute_ms = device.compute_ms(),
        .forward_comm_ms = device.forward_comm_ms(),
        .backward_comm_ms = device.backward_comm_ms(),
        .total_ms = device.total_ms(),
        .sequence_buffer_bytes = device.sequence_buffer_bytes(),
    });
  }
  plan.cost_ms = proto.cost_ms();
  plan.bottleneck_device = proto.bottleneck_device();
  plan.algorithm = proto.algorithm();
  plan.parameters.insert(proto.parameters().begin(), proto.parameters().end());
  plan.seed = proto.seed();
  plan.cost_model = proto.cost_model();
  plan.cost_kind = proto.cost_kind();
  plan.local_world_size = proto.local_world_size();
  const v1::SearchStats& stats = proto.stats();
  plan.stats.planning_time_ms = stats.planning_time_ms();
  plan.stats.cost_model_calls = stats.cost_model_calls();
  plan.stats.cost_cache_hits = stats.cost_cache_hits();
  plan.stats.cost_cache_misses = stats.cost_cache_misses();
  plan.stats.candidates_evaluated = stats.candidates_evaluated();
  plan.stats.anytime_result = stats.anytime_result();
  plan.stats.column_splits.assign(proto.column_splits().begin(), proto.column_splits().end());
  return plan;
}

}  // namespace shardplan::wire
