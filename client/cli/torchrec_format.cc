#include "client/cli/torchrec_format.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
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

}  // namespace

absl::StatusOr<std::string> FormatTorchRecPlan(const shardplan::v1::Plan& plan,
                                               const TorchRecOptions& options) {
  const int local_world_size =
      options.local_world_size > 0 ? options.local_world_size : DeviceCount(plan);
  // ordered_json keeps the plan's table order and TorchRec's key order.
  nlohmann::ordered_json module = nlohmann::ordered_json::object();
  for (const auto& table : plan.tables()) {
    if (table.shards().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("table ", table.table(), " has no shards"));
    }
    std::vector<shardplan::v1::Shard> shards(table.shards().begin(), table.shards().end());
    std::stable_sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) {
      return std::pair(a.row_offset(), a.column_offset()) <
             std::pair(b.row_offset(), b.column_offset());
    });
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    nlohmann::ordered_json metadata = nlohmann::ordered_json::array();
    for (const auto& shard : shards) {
      ranks.push_back(shard.device());
      metadata.push_back({
          {"shard_offsets", {shard.row_offset(), shard.column_offset()}},
          {"shard_sizes", {shard.row_count(), shard.column_count()}},
          {"placement",
           absl::StrCat("rank:", shard.device(), "/cuda:", shard.device() % local_world_size)},
      });
    }
    module[table.table()] = {
        {"sharding_type", ShardingTypeName(table.sharding_type())},
        {"compute_kernel", "fused"},
        {"ranks", ranks},
        {"shards", metadata},
    };
  }
  nlohmann::ordered_json root = {{"plan", {{options.module_path, module}}}};
  return root.dump(2) + "\n";
}

}  // namespace shardplan::cli
