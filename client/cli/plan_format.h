#ifndef SHARDPLAN_CLIENT_CLI_PLAN_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_PLAN_FORMAT_H_

#include <optional>
#include <string>

#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// The human-readable plan: a summary (algorithm, model, cost, cache hit when known, bottleneck
// device, search statistics), what the algorithm reports of the plan (its parameters' dotted
// keys, e.g. FlexShard's tiers: one row each), the per-device table (memory used / capacity in GiB, dim sum,
// shards, compute, forward and backward comm, total ms; the bottleneck marked "*") and the
// table -> device assignment.
std::string FormatPlanText(const shardplan::v1::Plan& plan,
                           std::optional<bool> cache_hit = std::nullopt);

// A job's status for `get`: id, state, progress, times, error; the plan when it succeeded.
std::string FormatJobStatusText(const shardplan::v1::JobStatus& status);

// One line per status for `watch`: "job ID  RUNNING   42%  placing table 12/40".
std::string FormatProgressLine(const shardplan::v1::JobStatus& status);

// "TABLE_WISE" -> "table_wise", the spelling TorchRec and the text output use.
std::string ShardingTypeName(shardplan::v1::ShardingType type);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_PLAN_FORMAT_H_
