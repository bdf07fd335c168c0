#include "planner/algorithms/torchrec/torchrec_planner.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "planner/algorithms/torchrec/enumerator.h"
#include "planner/algorithms/torchrec/partitioner.h"
#include "planner/algorithms/torchrec/proposers.h"
#include "planner/domain/memory.h"
#include "planner/domain/sharding_semantics.h"

namespace shardplan {
namespace {

using torchrec::kAlgorithmName;
using torchrec::Placement;
using torchrec::Proposal;
using torchrec::SearchSpace;
using torchrec::ShardingOption;

// Progress reports per run, at most.
constexpr int64_t kProgressReports = 20;

// Total bytes per [table][option], summed once per search.
std::vector<std::vector<int64_t>> OptionBytes(const SearchSpace& space) {
  std::vector<std::vector<int64_t>> bytes(space.options_of_table.size());
  for (size_t t = 0; t < bytes.size(); ++t) {
    for (const ShardingOption& option : space.options_of_table[t]) {
      bytes[t].push_back(option.BytesSum());
    }
  }
  return bytes;
}

// A rating no placement of a proposal can go below: its slowest shard, or its perf spread
// evenly over the devices. Summed per [table][option] once per search.
class RatingFloor {
 public:
  explicit RatingFloor(const SearchSpace& space, int num_devices) : num_devices_(num_devices) {
    for (const std::vector<ShardingOption>& options : space.options_of_table) {
      sums_.emplace_back();
      maxes_.emplace_back();
      for (const ShardingOption& option : options) {
        sums_.back().push_back(option.PerfSum());
        maxes_.back().push_back(option.PerfMax());
      }
    }
  }
  double Of(const Proposal& proposal) const {
    double sum = 0.0;
    double max = 0.0;
    for (size_t t = 0; t < proposal.size(); ++t) {
      sum += sums_[t][proposal[t]];
      max = std::max(max, maxes_[t][proposal[t]]);
    }
    return std::max(max, sum / num_devices_);
  }

 private:
  int num_devices_;
  std::vector<std::vector<double>> sums_;
  std::vector<std::vector<double>> maxes_;
};

int64_t ProposalBytes(const std::vector<std::vector<int64_t>>& option_bytes,
                      const Proposal& proposal) {
  int64_t bytes = 0;
  for (size_t t = 0; t < proposal.size(); ++t) bytes = AddBytes(bytes, option_bytes[t][proposal[t]]);
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

// The option's type and shards; column_splits names a column-wise table once per halving that
// makes its shards (k equal shards are k - 1 halvings), as NeuroShard's do.
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
                                      .row_offset = option.shards[s].row_offset,
                                      .row_count = option.shards[s].rows,
                                      .column_offset = option.shards[s].column_offset,
                                      .column_count = option.shards[s].columns});
    }
    if (option.sharding_type == ShardingType::kColumnWise) {
      for (size_t s = 1; s < option.shards.size(); ++s) {
        plan.stats.column_splits.push_back(table.name);
      }
    }
    plan.tables.push_back(std::move(sharding));
  }
  return plan;
}

constexpr ShardingType kAllTypes[] = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                      ShardingType::kRowWise, ShardingType::kTableRowWise,
                                      ShardingType::kDataParallel};

// The types `params.sharding_types` names ("all" or TorchRec's comma-separated names) that the
// request's cost model can cost: "all" keeps those it can, an explicit list must name only those.
absl::StatusOr<std::vector<ShardingType>> EnabledTypes(const std::string& spelled,
                                                       const CostModel& model) {
  std::vector<ShardingType> types;
  const bool all = spelled == "all";
  if (all) {
    types.assign(std::begin(kAllTypes), std::end(kAllTypes));
  } else {
    for (absl::string_view name : absl::StrSplit(spelled, ',', absl::SkipWhitespace())) {
      name = absl::StripAsciiWhitespace(name);
      const ShardingType* type =
          std::find_if(std::begin(kAllTypes), std::end(kAllTypes), [&](ShardingType candidate) {
            return absl::AsciiStrToLower(ShardingTypeName(candidate)) == name;
          });
      if (type == std::end(kAllTypes)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "params.sharding_types: unknown sharding type \"", name,
            "\" (expected all, or some of table_wise, column_wise, row_wise, table_row_wise, "
            "data_parallel)"));
      }
      if (std::find(types.begin(), types.end(), *type) == types.end()) types.push_back(*type);
    }
    if (types.empty()) {
      return absl::InvalidArgumentError("params.sharding_types: names no sharding type");
    }
  }
  std::vector<ShardingType> costed;
  for (ShardingType type : types) {
    if (model.CostsShardingType(type)) {
      costed.push_back(type);
    } else if (!all) {
      return absl::FailedPreconditionError(absl::StrCat(
          "params.sharding_types: cost model ", model.id(), " cannot cost ",
          ShardingTypeName(type), " shards; leave them out or use a model that costs them "
          "(analytic@1 costs every type)"));
    }
  }
  return costed;
}

// Proposals over the column-level options alone (TW, CW), mapped back to `space`'s option
// indices: the plans the TW/CW-only planner would consider stay candidates when row-level
// options join, so adding types never rates worse (TorchRec's proposers over the larger space
// alone need not find them: the grid search is skipped above 10^4 combinations and the greedy
// walk takes other steps).
class ColumnLevelProposer : public torchrec::Proposer {
 public:
  ColumnLevelProposer(std::unique_ptr<torchrec::Proposer> inner, std::vector<std::vector<int>> index)
      : inner_(std::move(inner)), index_(std::move(index)),
        name_(absl::StrCat(inner_->name(), " over TW/CW")) {}

  absl::string_view name() const override { return name_; }
  int64_t MaxProposals() const override { return inner_->MaxProposals(); }
  std::optional<Proposal> Propose() override {
    std::optional<Proposal> proposal = inner_->Propose();
    if (!proposal) return std::nullopt;
    for (size_t t = 0; t < proposal->size(); ++t) (*proposal)[t] = index_[t][(*proposal)[t]];
    return proposal;
  }

 private:
  std::unique_ptr<torchrec::Proposer> inner_;
  std::vector<std::vector<int>> index_;  // [table][column-level option] -> option in the space
  std::string name_;
};

// `space` with only its column-level options, and each kept option's index in `space`; nullopt
// when it has no row-level option or some table has no column-level one.
struct ColumnLevelSpace {
  SearchSpace space;
  std::vector<std::vector<int>> index;
};
std::optional<ColumnLevelSpace> ColumnLevelOnly(const SearchSpace& space) {
  ColumnLevelSpace restricted;
  restricted.space.units = space.units;
  bool any_row_level = false;
  for (const std::vector<ShardingOption>& options : space.options_of_table) {
    restricted.space.options_of_table.emplace_back();
    restricted.index.emplace_back();
    for (size_t i = 0; i < options.size(); ++i) {
      if (!IsColumnLevel(options[i].sharding_type)) {
        any_row_level = true;
        continue;
      }
      restricted.space.options_of_table.back().push_back(options[i]);
      restricted.index.back().push_back(static_cast<int>(i));
    }
    if (restricted.index.back().empty()) return std::nullopt;
  }
  if (!any_row_level) return std::nullopt;
  return restricted;
}

}  // namespace

TorchRecPlanner::TorchRecPlanner() {
  info_.name = kAlgorithmName;
  info_.description =
      "TorchRec's planner: table-wise, equal-width column-wise, row-wise, table-row-wise and "
      "data-parallel options scored by TorchRec's analytic estimator, its default proposers and "
      "GreedyPerfPartitioner.";
  info_.params = {
      ParamSpec{.name = "min_partition",
                .type = ParamType::kInt,
                .default_value = "4",
                .description = "Narrowest column-wise shard, in columns (TorchRec's "
                               "min_partition; its default 128 would leave every table of dim "
                               "<= 128 whole).",
                .min_value = 4,
                .max_value = 1 << 16},
      ParamSpec{.name = "sharding_types",
                .type = ParamType::kString,
                .default_value = "all",
                .description = "Sharding types to enumerate: all, or a comma-separated list of "
                               "table_wise, column_wise, row_wise, table_row_wise, "
                               "data_parallel. Each table's allowed types still apply, and "
                               "\"all\" keeps only the types the request's cost model costs."}};
  info_.sharding_types = std::vector<ShardingType>(std::begin(kAllTypes), std::end(kAllTypes));
  info_.uses_cost_model = false;
}

absl::StatusOr<Plan> TorchRecPlanner::Run(const Task& task, const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  const auto min_partition = static_cast<int32_t>(context.params.GetInt("min_partition"));
  SHARDPLAN_ASSIGN_OR_RETURN(
      const std::vector<ShardingType> types,
      EnabledTypes(context.params.GetString("sharding_types"), *context.cost_model));
  SHARDPLAN_ASSIGN_OR_RETURN(const SearchSpace space,
                             torchrec::Enumerate(task, min_partition, types));
  std::vector<std::unique_ptr<torchrec::Proposer>> proposers = torchrec::DefaultProposers(space);
  const std::optional<ColumnLevelSpace> column_level = ColumnLevelOnly(space);
  if (column_level) {
    for (auto& proposer : torchrec::DefaultProposers(column_level->space)) {
      proposers.push_back(
          std::make_unique<ColumnLevelProposer>(std::move(proposer), column_level->index));
    }
  }
  int64_t max_proposals = 0;
  for (const auto& proposer : proposers) max_proposals += proposer->MaxProposals();
  const int64_t report_every = std::max<int64_t>(1, max_proposals / kProgressReports);

  torchrec::Partitioner partitioner(task, space);
  const std::vector<std::vector<int64_t>> option_bytes = OptionBytes(space);
  const RatingFloor floor(space, task.topology.num_devices());
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
        const int64_t bytes = ProposalBytes(option_bytes, *proposal);
        smallest_bytes = std::min(smallest_bytes.value_or(bytes), bytes);
        // Strictly better only (ties keep the first plan found): a proposal that cannot beat the
        // best so far is dropped as soon as its partial placement shows it.
        const double bound = best ? best->perf_rating : std::numeric_limits<double>::infinity();
        // A proposal whose floor is not below the best cannot replace it: skip its placement.
        if ((!best || floor.Of(*proposal) < bound) && partitioner.Partition(*proposal, bound)) {
          best = partitioner.placement();
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
