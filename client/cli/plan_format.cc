#include "client/cli/plan_format.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "base/text_wrap.h"
#include "client/cli/output.h"
#include "client/cli/text_table.h"

namespace shardplan::cli {
namespace {

using ::shardplan::v1::Plan;

std::string FormatUnixMs(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S UTC", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

// "label:       value", the value wrapped under itself within 100 columns.
std::string Line(absl::string_view label, absl::string_view value) {
  std::string lead = absl::StrCat(label, ":");
  lead.resize(std::max<size_t>(lead.size() + 1, 13), ' ');
  return HangingIndent(lead, value);
}

// Dotted keys of a plan's parameters are what its algorithm reports of it (FlexShard's
// "tier.dp.rows"), not parameters: they get a table of their own (Report).
bool IsReported(absl::string_view key) { return key.find('.') != absl::string_view::npos; }

std::string Summary(const Plan& plan, std::optional<bool> cache_hit) {
  std::vector<std::string> params;
  for (const auto& [key, value] : plan.parameters()) {
    if (!IsReported(key)) params.push_back(absl::StrCat(key, "=", value));
  }
  std::sort(params.begin(), params.end());  // proto maps have no order

  std::string text;
  // An evaluated plan has no algorithm or search of its own.
  if (!plan.algorithm().empty()) {
    absl::StrAppend(&text,
                    Line("algorithm", absl::StrCat(plan.algorithm(), " (seed ", plan.seed(), ")")));
  }
  if (!params.empty()) absl::StrAppend(&text, Line("parameters", absl::StrJoin(params, " ")));
  absl::StrAppend(
      &text, Line("cost model",
                  absl::StrCat(
                      plan.cost_model(),
                      plan.cost_kind().empty() ? "" : absl::StrCat(" (", plan.cost_kind(), ")"))));
  absl::StrAppend(&text, Line("cost", absl::StrCat(FormatMs(plan.cost_ms()), " ms")));
  if (cache_hit.has_value()) absl::StrAppend(&text, Line("cache hit", *cache_hit ? "yes" : "no"));
  absl::StrAppend(&text, Line("bottleneck", absl::StrCat("device ", plan.bottleneck_device())));
  if (!plan.algorithm().empty() && plan.has_stats()) {
    const auto& stats = plan.stats();
    absl::StrAppend(
        &text,
        Line("search",
             absl::StrCat(FormatMs(stats.planning_time_ms()), " ms, ", stats.candidates_evaluated(),
                          " candidates, ", stats.cost_model_calls(), " cost-model calls",
                          stats.anytime_result() ? " (cut short by deadline)" : "")));
  }
  if (!plan.column_splits().empty()) {
    absl::StrAppend(&text, Line("splits", absl::StrJoin(plan.column_splits(), " ")));
  }
  if (!plan.request_hash().empty()) absl::StrAppend(&text, Line("request", plan.request_hash()));
  // Why the server chose the algorithm and model, one reason a line.
  for (absl::string_view reason : absl::StrSplit(plan.selection(), "; ", absl::SkipEmpty())) {
    absl::StrAppend(&text, Line("chosen", reason));
  }
  for (const auto& warning : plan.warnings()) {
    absl::StrAppend(&text, Line("warning", absl::StrCat(warning.field(), ": ", warning.message())));
  }
  return text;
}

// What the algorithm reports of the plan, one key a row in key order; "" when nothing.
std::string Report(const Plan& plan) {
  std::vector<std::pair<std::string, std::string>> reported;
  for (const auto& [key, value] : plan.parameters()) {
    if (IsReported(key)) reported.emplace_back(key, value);
  }
  if (reported.empty()) return "";
  std::sort(reported.begin(), reported.end());
  TextTable table({"reported by " + plan.algorithm(), "value"}, {false, true});
  for (auto& [key, value] : reported) table.AddRow({std::move(key), std::move(value)});
  return table.Render() + "\n";
}

std::string DeviceTable(const Plan& plan) {
  TextTable table({"device", "memory GiB", "dim sum", "shards", "compute ms", "fw comm ms",
                   "bw comm ms", "total ms"},
                  {false, true, true, true, true, true, true, true});
  for (const auto& device : plan.devices()) {
    const bool bottleneck = device.device() == plan.bottleneck_device();
    table.AddRow({absl::StrCat(device.device(), bottleneck ? " *" : ""),
                  absl::StrCat(FormatGiB(device.memory_bytes()), " / ",
                               FormatGiB(device.memory_capacity_bytes())),
                  absl::StrCat(device.dim_sum()), absl::StrCat(device.num_shards()),
                  FormatMs(device.compute_ms()), FormatMs(device.forward_comm_ms()),
                  FormatMs(device.backward_comm_ms()), FormatMs(device.total_ms())});
  }
  return table.Render() + "(* bottleneck device)\n";
}

// Where a table's shards sit: "2" for a whole table, "0[r0:500) 1[r500:1000)" for row blocks
// (row_wise, table_row_wise), "0[c0:32) 3[c32:64)" for column ranges, "0 1 2 (replicas)" for
// data_parallel. Replicas of one row group share its range: "0+1+2+3[r0:10) 0[r10:505) ...".
std::string Placement(const shardplan::v1::TableSharding& sharding) {
  const shardplan::v1::ShardingType type = sharding.sharding_type();
  const bool by_rows = type == shardplan::v1::ROW_WISE || type == shardplan::v1::TABLE_ROW_WISE;
  if (sharding.shards_size() == 1 && !by_rows && type != shardplan::v1::COLUMN_WISE) {
    return absl::StrCat(sharding.shards(0).device());
  }
  if (type == shardplan::v1::DATA_PARALLEL) {
    std::vector<std::string> parts;
    for (const auto& shard : sharding.shards()) parts.push_back(absl::StrCat(shard.device()));
    parts.push_back("(replicas)");
    return absl::StrJoin(parts, " ");
  }
  // Row groups in order of their first shard, each with its replicas' devices.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& shard : sharding.shards()) {
    const std::string range =
        by_rows ? absl::StrCat("[r", shard.row_offset(), ":", shard.row_offset() + shard.row_count(),
                               ")")
                : absl::StrCat("[c", shard.column_offset(), ":",
                               shard.column_offset() + shard.column_count(), ")");
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == range; });
    if (it == groups.end()) it = groups.insert(groups.end(), {range, {}});
    it->second.push_back(absl::StrCat(shard.device()));
  }
  std::vector<std::string> parts;
  for (const auto& [range, devices] : groups) {
    parts.push_back(absl::StrCat(absl::StrJoin(devices, "+"), range));
  }
  return absl::StrJoin(parts, " ");
}

// The sharding column: the type, with the layout's order and routes when not the default.
std::string ShardingColumn(const shardplan::v1::TableSharding& sharding) {
  std::string text = ShardingTypeName(sharding.sharding_type());
  if (sharding.row_layout().row_order() == shardplan::v1::FREQUENCY_RANK) {
    absl::StrAppend(&text, " by rank");
    // Rows hashed within rank bands (FlexShard's tiers).
    if (const int bands = sharding.row_layout().rank_bands_size(); bands > 0) {
      absl::StrAppend(&text, " in ", bands + 1, " bands");
    }
  }
  if (const int routes = sharding.row_layout().routes_size(); routes > 0) {
    absl::StrAppend(&text, ", ", routes, routes == 1 ? " route" : " routes");
  }
  // The ids themselves are in the plan's JSON (--format json): a table could list millions.
  if (const int ids = sharding.row_layout().hot_row_ids_size(); ids > 0) {
    absl::StrAppend(&text, ", ", ids, ids == 1 ? " hot row id" : " hot row ids");
  }
  return text;
}

std::string AssignmentTable(const Plan& plan) {
  TextTable table({"table", "sharding", "rows", "dim", "device(s)"}, {false, false, true, true});
  table.Wrap(4);  // many shards: their placements on continuation lines
  for (const auto& sharding : plan.tables()) {
    int64_t rows = 0;
    int64_t dim = 0;
    for (const auto& shard : sharding.shards()) {
      rows = std::max(rows, shard.row_offset() + shard.row_count());
      dim = std::max<int64_t>(dim, shard.column_offset() + shard.column_count());
    }
    table.AddRow({sharding.table(), ShardingColumn(sharding), absl::StrCat(rows),
                  absl::StrCat(dim), Placement(sharding)});
  }
  return table.Render();
}

}  // namespace

std::string ShardingTypeName(shardplan::v1::ShardingType type) {
  return absl::AsciiStrToLower(shardplan::v1::ShardingType_Name(type));
}

std::string FormatPlanText(const Plan& plan, std::optional<bool> cache_hit) {
  return absl::StrCat(Summary(plan, cache_hit), "\n", Report(plan), DeviceTable(plan), "\n",
                      AssignmentTable(plan));
}

std::string FormatProgressLine(const shardplan::v1::JobStatus& status) {
  std::string line = absl::StrFormat("job %s  %-9s %3.0f%%", status.job_id(),
                                     shardplan::v1::JobState_Name(status.state()),
                                     100.0 * std::clamp(status.progress_fraction(), 0.0, 1.0));
  if (!status.progress().empty()) absl::StrAppend(&line, "  ", status.progress());
  if (!status.error_message().empty()) absl::StrAppend(&line, "  ", status.error_message());
  return line + "\n";
}

std::string FormatJobStatusText(const shardplan::v1::JobStatus& status) {
  std::string text;
  absl::StrAppend(&text, Line("job", status.job_id()));
  absl::StrAppend(&text, Line("state", shardplan::v1::JobState_Name(status.state())));
  if (!status.progress().empty() || status.progress_fraction() > 0) {
    absl::StrAppend(
        &text,
        Line("progress",
             absl::StrCat(absl::StrFormat("%.0f%%", 100.0 * status.progress_fraction()),
                          status.progress().empty() ? "" : absl::StrCat("  ", status.progress()))));
  }
  absl::StrAppend(&text, Line("submitted", FormatUnixMs(status.submitted_unix_ms())));
  absl::StrAppend(&text, Line("started", FormatUnixMs(status.started_unix_ms())));
  absl::StrAppend(&text, Line("finished", FormatUnixMs(status.finished_unix_ms())));
  if (status.error_code() != 0 || !status.error_message().empty()) {
    absl::StrAppend(
        &text, Line("error", absl::StrCat(absl::StatusCodeToString(
                                              static_cast<absl::StatusCode>(status.error_code())),
                                          ": ", status.error_message())));
  }
  if (status.has_result() && status.result().has_plan()) {
    absl::StrAppend(&text, "\n",
                    FormatPlanText(status.result().plan(), status.result().cache_hit()));
  }
  return text;
}

}  // namespace shardplan::cli
