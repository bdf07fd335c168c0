#include "client/cli/torchrec_format.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/cli/plan_format.h"
#include "nlohmann/json.hpp"

namespace shardplan::cli {
namespace {

// The plan's device count: its per-device figures, or the highest device a shard uses.
int DeviceCount(const shardplan::v1::Plan& plan) {
  int count = plan.devices_size();
  for (const auto& table : plan.tables()) {
    for (const auto& shard : table.shards()) count = std::max(count, shard.device() + 1);
  }
  return std::max(count, 1);
}

// Devices per host: the caller's, else the plan's (EvaluatePlan records the task's), else one
// host of every device (a plan from before plans carried it).
int LocalWorldSize(const shardplan::v1::Plan& plan, const TorchRecOptions& options) {
  if (options.local_world_size > 0) return options.local_world_size;
  if (plan.local_world_size() > 0) return plan.local_world_size();
  return DeviceCount(plan);
}

std::string TorchRecPlacement(int rank, int local_world_size) {
  return absl::StrCat("rank:", rank, "/cuda:", rank % local_world_size);
}

// One table as TorchRec's ParameterSharding._serialize writes it. Sharded types: the shards by
// offset, ranks[i] the rank of shards[i] (the order of TorchRec's row_wise, table_row_wise and
// column_wise generators; a rank may repeat), kernel "fused". DATA_PARALLEL, as TorchRec's
// planner writes it: the replicas' ranks in rank order, kernel "dense", and no "shards" (its
// sharding_spec is None).
nlohmann::ordered_json ParameterSharding(const shardplan::v1::TableSharding& table,
                                         int local_world_size) {
  std::vector<shardplan::v1::Shard> shards(table.shards().begin(), table.shards().end());
  const bool replicated = table.sharding_type() == shardplan::v1::DATA_PARALLEL;
  std::stable_sort(shards.begin(), shards.end(), [&](const auto& a, const auto& b) {
    if (replicated) return a.device() < b.device();
    return std::pair(a.row_offset(), a.column_offset()) <
           std::pair(b.row_offset(), b.column_offset());
  });
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  nlohmann::ordered_json metadata = nlohmann::ordered_json::array();
  for (const auto& shard : shards) {
    ranks.push_back(shard.device());
    if (replicated) continue;
    metadata.push_back({
        {"shard_offsets", {shard.row_offset(), shard.column_offset()}},
        {"shard_sizes", {shard.row_count(), shard.column_count()}},
        {"placement", TorchRecPlacement(shard.device(), local_world_size)},
    });
  }
  nlohmann::ordered_json sharding = {
      {"sharding_type", ShardingTypeName(table.sharding_type())},
      {"compute_kernel", replicated ? "dense" : "fused"},
      {"ranks", ranks},
  };
  if (!replicated) sharding["shards"] = metadata;
  return sharding;
}

// Why TorchRec cannot run `table`'s layout, or "" when it can: TorchRec's types have no
// replicated row groups, no data-parallel table on some ranks only, no routes and no row order
// but the ids' (docs/architecture.md, "Row layout").
// `device_count` is the plan's when it carries its figures, else 0 (unknown: a plan without
// figures may leave ranks empty).
std::string NotATorchRecLayout(const shardplan::v1::TableSharding& table, int device_count) {
  if (table.row_layout().row_order() == shardplan::v1::FREQUENCY_RANK) {
    return "its rows are in frequency-rank order (TorchRec shards row ids; remap the ids first)";
  }
  if (table.row_layout().routes_size() > 0) return "it has routes (TorchRec routes no lookup)";
  if (table.sharding_type() == shardplan::v1::DATA_PARALLEL) {
    if (table.shards_size() < device_count) {
      return absl::StrCat("it is data_parallel on ", table.shards_size(), " of ", device_count,
                          " ranks (TorchRec replicates on every rank)");
    }
    return "";
  }
  std::set<std::pair<int64_t, int64_t>> ranges;  // (row offset, column offset)
  for (const auto& shard : table.shards()) {
    if (!ranges.emplace(shard.row_offset(), shard.column_offset()).second) {
      return absl::StrCat("rows [", shard.row_offset(), ", ", shard.row_offset() + shard.row_count(),
                          ") are replicated (TorchRec has no replicated row groups)");
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<std::string> FormatTorchRecPlan(const shardplan::v1::Plan& plan,
                                               const TorchRecOptions& options) {
  const int local_world_size = LocalWorldSize(plan, options);
  // ordered_json keeps the plan's table order and TorchRec's key order.
  nlohmann::ordered_json module = nlohmann::ordered_json::object();
  nlohmann::ordered_json sequence_module = nlohmann::ordered_json::object();
  for (const auto& table : plan.tables()) {
    if (table.shards().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("table ", table.table(), " has no shards"));
    }
    if (const std::string why = NotATorchRecLayout(table, plan.devices_size()); !why.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("table ", table.table(), " has no TorchRec sharding: ", why));
    }
    const bool sequence = options.sequence_tables.contains(table.table());
    if (sequence && table.sharding_type() == shardplan::v1::TABLE_ROW_WISE) {
      return absl::InvalidArgumentError(absl::StrCat(
          "table ", table.table(),
          " is a SEQUENCE table sharded table_row_wise, which TorchRec's EmbeddingCollection "
          "does not support (table_wise, column_wise, row_wise, data_parallel)"));
    }
    (sequence ? sequence_module : module)[table.table()] =
        ParameterSharding(table, local_world_size);
  }
  nlohmann::ordered_json modules = nlohmann::ordered_json::object();
  if (!module.empty() || sequence_module.empty()) modules[options.module_path] = module;
  if (!sequence_module.empty()) modules[options.sequence_module_path] = sequence_module;
  nlohmann::ordered_json root = {{"plan", modules}};
  return root.dump(2) + "\n";
}

bool LooksLikeTorchRecPlan(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("plan") || !json["plan"].is_object()) return false;
  for (const auto& [module, tables] : json["plan"].items()) {
    if (!tables.is_object()) return false;
    for (const auto& [table, sharding] : tables.items()) {
      if (!sharding.is_object() || !sharding.contains("sharding_type")) return false;
    }
  }
  return true;
}

TableShapes TableShapesOf(const shardplan::v1::Task& task) {
  TableShapes shapes;
  for (const auto& table : task.tables()) shapes[table.name()] = {table.rows(), table.dim()};
  return shapes;
}

namespace {

absl::StatusOr<shardplan::v1::ShardingType> ParseShardingType(const nlohmann::json& type,
                                                              const std::string& field) {
  shardplan::v1::ShardingType parsed = shardplan::v1::SHARDING_TYPE_UNSPECIFIED;
  if (!type.is_string() ||
      !shardplan::v1::ShardingType_Parse(absl::AsciiStrToUpper(type.get<std::string>()), &parsed) ||
      parsed == shardplan::v1::SHARDING_TYPE_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".sharding_type: ", type.dump(),
        " is not one shardplan reads (table_wise, column_wise, row_wise, table_row_wise, "
        "data_parallel)"));
  }
  return parsed;
}

// One ShardMetadata as _serialize writes it; `path` names it in errors.
absl::StatusOr<shardplan::v1::Shard> ParseShard(const nlohmann::json& shard,
                                                const std::string& path) {
  const auto pair = [&](const char* key) -> absl::StatusOr<std::pair<int64_t, int64_t>> {
    if (!shard.is_object() || !shard.contains(key) || !shard[key].is_array() ||
        shard[key].size() != 2 || !shard[key][0].is_number_integer() ||
        !shard[key][1].is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".", key, ": expected [rows, columns] as two integers"));
    }
    return std::pair(shard[key][0].get<int64_t>(), shard[key][1].get<int64_t>());
  };
  absl::StatusOr<std::pair<int64_t, int64_t>> offsets = pair("shard_offsets");
  if (!offsets.ok()) return offsets.status();
  absl::StatusOr<std::pair<int64_t, int64_t>> sizes = pair("shard_sizes");
  if (!sizes.ok()) return sizes.status();
  const std::string placement = shard.contains("placement") && shard["placement"].is_string()
                                    ? shard["placement"].get<std::string>()
                                    : "";
  const std::vector<absl::string_view> parts = absl::StrSplit(placement, '/');
  int rank = -1;
  if (!absl::StartsWith(parts[0], "rank:") || !absl::SimpleAtoi(parts[0].substr(5), &rank) ||
      rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ".placement: \"", placement, "\" is not \"rank:R/cuda:L\" or \"rank:R/cpu\""));
  }
  shardplan::v1::Shard out;
  out.set_device(rank);
  out.set_row_offset(offsets->first);
  out.set_row_count(sizes->first);
  out.set_column_offset(static_cast<int32_t>(offsets->second));
  out.set_column_count(static_cast<int32_t>(sizes->second));
  return out;
}

// A data_parallel table as TorchRec writes it, without "shards": a full replica of the table
// on each rank of "ranks".
absl::Status ReadReplicas(const nlohmann::json& sharding, const std::string& field,
                          const TableShapes& shapes, shardplan::v1::TableSharding& table) {
  const auto shape = shapes.find(table.table());
  if (shape == shapes.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field,
                     ": a data_parallel table without \"shards\" is a full replica on each of its "
                     "\"ranks\", so shardplan needs its shape, and the task has no table \"",
                     table.table(), "\""));
  }
  const nlohmann::json* ranks = sharding.contains("ranks") ? &sharding["ranks"] : nullptr;
  if (ranks == nullptr || !ranks->is_array() || ranks->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field,
                     ".ranks: expected the replicas' ranks, a non-empty list (data_parallel has no "
                     "\"shards\")"));
  }
  for (size_t i = 0; i < ranks->size(); ++i) {
    const nlohmann::json& rank = (*ranks)[i];
    if (!rank.is_number_integer() || rank.get<int64_t>() < 0 ||
        rank.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".ranks[", i, "]: ", rank.dump(), " is not a rank"));
    }
    shardplan::v1::Shard* replica = table.add_shards();
    replica->set_device(rank.get<int32_t>());
    replica->set_row_count(shape->second.rows);
    replica->set_column_count(shape->second.columns);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<shardplan::v1::Plan> ParseTorchRecPlan(const nlohmann::json& json,
                                                      const TableShapes& shapes) {
  if (!LooksLikeTorchRecPlan(json)) {
    return absl::InvalidArgumentError(
        "not a TorchRec plan: expected {\"plan\": {module: {table: {\"sharding_type\": ...}}}}");
  }
  shardplan::v1::Plan plan;
  std::set<std::string> seen;
  for (const auto& [module, tables] : json["plan"].items()) {
    for (const auto& [name, sharding] : tables.items()) {
      const std::string field = absl::StrCat("plan.", module, ".", name);
      if (!seen.insert(name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": table \"", name, "\" appears in more than one module"));
      }
      shardplan::v1::TableSharding* table = plan.add_tables();
      table->set_table(name);
      absl::StatusOr<shardplan::v1::ShardingType> type =
          ParseShardingType(sharding["sharding_type"], field);
      if (!type.ok()) return type.status();
      table->set_sharding_type(*type);
      const bool has_shards = sharding.contains("shards") && !sharding["shards"].is_null();
      if (!has_shards && *type == shardplan::v1::DATA_PARALLEL) {
        if (absl::Status read = ReadReplicas(sharding, field, shapes, *table); !read.ok()) {
          return read;
        }
        continue;
      }
      if (!has_shards || !sharding["shards"].is_array() || sharding["shards"].empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".shards: missing; shardplan reads each shard's offsets, sizes and placement"));
      }
      const bool by_rows =
          *type == shardplan::v1::ROW_WISE || *type == shardplan::v1::TABLE_ROW_WISE;
      for (size_t i = 0; i < sharding["shards"].size(); ++i) {
        absl::StatusOr<shardplan::v1::Shard> shard =
            ParseShard(sharding["shards"][i], absl::StrCat(field, ".shards[", i, "]"));
        if (!shard.ok()) return shard.status();
        // TorchRec's row split leaves trailing ranks zero rows (5 rows over 4 ranks: 2, 2, 1, 0).
        // They hold and serve nothing; shardplan's plans have no empty shards.
        if (by_rows && shard->row_count() == 0) continue;
        *table->add_shards() = *std::move(shard);
      }
    }
  }
  return plan;
}

}  // namespace shardplan::cli
