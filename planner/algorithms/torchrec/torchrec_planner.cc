#include "planner/algorithms/torchrec/torchrec_planner.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/torchrec/enumerator.h"
#include "planner/algorithms/torchrec/partitioner.h"
#include "planner/algorithms/torchrec/proposers.h"
#include "planner/domain/memory.h"

namespace shardplan {
namespace {

using torchrec::kAlgorithmName;
using torchrec::Placement;
using torchrec::Proposal;
using torchrec::SearchSpace;
using torchrec::ShardingOption;

// Progress reports per run, at most.
constexpr int64_t kProgressReports = 20;

int64_t ProposalBytes(const SearchSpace& space, const Proposal& proposal) {
  int64_t bytes = 0;
  for (size_t t = 0; t < proposal.size(); ++t) {
    bytes = AddBytes(bytes, space.options_of_table[t][proposal[t]].BytesSum());
  }
  return bytes;
}

// The table that needs the most memory at its smallest option, named as every infeasibility
// error names a table (docs/design.md section 5): `"name" needs at least X`.
std::string LargestTable(const Task& task, const SearchSpace& space) {
  size_t largest = 0;
  int64_t largest_bytes = -1;
  for (size_t t = 0; t < task.tables.size(); ++t) {
    int64_t bytes = -1;
    for (const ShardingOption& option : space.options_of_table[t]) {
      bytes = bytes < 0 ? option.BytesSum() : std::min(bytes, option.BytesSum());
    }
    if (bytes > largest_bytes) {
      largest = t;
      largest_bytes = bytes;
    }
  }
  return absl::StrCat("table \"", task.tables[largest].name, "\" needs at least ",
                      FormatGiB(std::max<int64_t>(largest_bytes, 0)));
}

// TorchRec's two failures: INSUFFICIENT_STORAGE when even the smallest proposal exceeds the
// devices' total memory, STRICT_CONSTRAINTS when it would fit in total but not shard by shard.
// Both also name the largest table.
absl::Status NoProposalFits(const Task& task, const SearchSpace& space, int64_t proposals,
                            int64_t smallest_bytes) {
  const std::vector<int64_t>& capacity = task.topology.memory_bytes;
  int64_t total = 0;
  for (int64_t bytes : capacity) total = AddBytes(total, bytes);
  const int largest =
      static_cast<int>(std::max_element(capacity.begin(), capacity.end()) - capacity.begin());
  const std::string devices =
      absl::StrCat(task.topology.num_devices(), " devices, the largest device ", largest, " with ",
                   FormatGiB(capacity[largest]));
  if (smallest_bytes > total) {
    return absl::FailedPreconditionError(
        absl::StrCat("task is infeasible for ", kAlgorithmName, ": the smallest of ", proposals,
                     " proposals needs ", FormatGiB(smallest_bytes), " but the devices hold ",
                     FormatGiB(total), " in total (", devices, "; the largest ",
                     LargestTable(task, space), ")"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "task is infeasible for ", kAlgorithmName, ": none of ", proposals,
      " proposals fits; the smallest needs ", FormatGiB(smallest_bytes), " of the devices' ",
      FormatGiB(total), " in total but its shards do not fit device by device (", devices,
      "; pinned and colocated tables stay whole; the largest ", LargestTable(task, space), ")"));
}

// TABLE_WISE for one-shard TW options, COLUMN_WISE otherwise; column_splits names a table once
// per halving that makes its shards (k equal shards are k - 1 halvings), as NeuroShard's do.
Plan PlanOf(const Task& task, const SearchSpace& space, const Proposal& proposal,
            const Placement& placement) {
  Plan plan;
  plan.tables.reserve(task.tables.size());
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    const ShardingOption& option = space.options_of_table[t][proposal[t]];
    TableSharding sharding{
        .table = table.name, .sharding_type = option.sharding_type, .shards = {}};
    for (size_t s = 0; s < option.shards.size(); ++s) {
      sharding.shards.push_back(Shard{.device = placement.device_of_shard[t][s],
                                      .row_offset = 0,
                                      .row_count = table.rows,
                                      .column_offset = option.shards[s].column_offset,
                                      .column_count = option.shards[s].columns});
    }
    for (size_t s = 1; s < option.shards.size(); ++s) plan.stats.column_splits.push_back(table.name);
    plan.tables.push_back(std::move(sharding));
  }
  return plan;
}

}  // namespace

TorchRecPlanner::TorchRecPlanner() {
  info_.name = kAlgorithmName;
  info_.description =
      "TorchRec's planner: table-wise and equal-width column-wise options scored by TorchRec's "
      "analytic estimator, its default proposers and GreedyPerfPartitioner (no RW/DP).";
  info_.params = {ParamSpec{
      .name = "min_partition",
      .type = ParamType::kInt,
      .default_value = "4",
      .description = "Narrowest column-wise shard, in columns (TorchRec's min_partition; its "
                     "default 128 would leave every table of dim <= 128 whole).",
      .min_value = 4,
      .max_value = 1 << 16}};
  info_.sharding_types = {ShardingType::kTableWise, ShardingType::kColumnWise};
  info_.uses_cost_model = false;
}

absl::StatusOr<Plan> TorchRecPlanner::Run(const Task& task, const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  const auto min_partition = static_cast<int32_t>(context.params.GetInt("min_partition"));
  SHARDPLAN_ASSIGN_OR_RETURN(const SearchSpace space, torchrec::Enumerate(task, min_partition));
  std::vector<std::unique_ptr<torchrec::Proposer>> proposers = torchrec::DefaultProposers(space);
  int64_t max_proposals = 0;
  for (const auto& proposer : proposers) max_proposals += proposer->MaxProposals();
  const int64_t report_every = std::max<int64_t>(1, max_proposals / kProgressReports);

  std::set<Proposal> seen;  // TorchRec's proposal_cache: a repeated proposal is not re-placed
  std::optional<Placement> best;
  Proposal best_proposal;
  std::optional<int64_t> smallest_bytes;  // of all proposals, for the infeasibility message
  int64_t proposed = 0;
  bool stopped = false;
  for (const auto& proposer : proposers) {
    while (!stopped) {
      std::optional<Proposal> proposal = proposer->Propose();
      if (!proposal) break;
      if (!context.stop->Check().ok()) {
        stopped = true;
        break;
      }
      ++proposed;
      if (seen.insert(*proposal).second) {
        const int64_t bytes = ProposalBytes(space, *proposal);
        smallest_bytes = std::min(smallest_bytes.value_or(bytes), bytes);
        std::optional<Placement> placement = torchrec::GreedyPerfPartition(task, space, *proposal);
        // Strictly better only: ties keep the first plan found.
        if (placement && (!best || placement->perf_rating < best->perf_rating)) {
          best = std::move(placement);
          best_proposal = *proposal;
        }
      }
      if (context.on_progress && proposed % report_every == 0) {
        context.on_progress(PlanningProgress{
            absl::StrCat(kAlgorithmName, ": ", proposer->name(), " proposal ", proposed,
                         " of <=", max_proposals, ", best perf ",
                         best ? absl::StrCat(best->perf_rating, " ms") : "none"),
            std::min(1.0, static_cast<double>(proposed) / static_cast<double>(max_proposals))});
      }
    }
  }
  if (!best) {
    if (stopped) {
      absl::Status status = context.stop->Check();
      return status.ok() ? absl::DeadlineExceededError("torchrec stopped before any plan") : status;
    }
    return NoProposalFits(task, space, static_cast<int64_t>(seen.size()),
                          smallest_bytes.value_or(0));
  }

  Plan plan = PlanOf(task, space, best_proposal, *best);
  plan.stats.candidates_evaluated = static_cast<int64_t>(seen.size());
  plan.stats.anytime_result = stopped;
  return plan;
}

}  // namespace shardplan
