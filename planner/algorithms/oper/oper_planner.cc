#include "planner/algorithms/oper/oper_planner.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_inference_replication.h"
#include "planner/algorithms/oper/oper_layout.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/algorithms/oper/oper_report.h"
#include "planner/algorithms/oper/oper_training_duplication.h"
#include "planner/domain/fetch_cost.h"
#include "planner/domain/table_access.h"
#include "planner/search/row_spreading_constraints.h"

namespace shardplan {
namespace {

using oper::PlacementRule;

const char* NameOf(PlacementRule rule) {
  switch (rule) {
    case PlacementRule::kOper:
      return "oper";
    case PlacementRule::kMemoryGreedy:
      return "memory_greedy";
    case PlacementRule::kAccessGreedy:
      return "access_greedy";
  }
  return "?";
}

ParamSpec OperSpec(std::string name, ParamType type, std::string default_value,
                   std::string description, std::optional<double> min = std::nullopt,
                   std::optional<double> max = std::nullopt) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.description = std::move(description);
  spec.min_value = min;
  spec.max_value = max;
  return spec;
}

// The tables as the partitioning reads them; `curves` owns what they point to. (C1) A table's
// ranks are its access profile's (CurveOf); a table without one has no ranking the client could
// apply, so its rows count as equally hot, in id order (the natural layout's reading).
absl::StatusOr<std::vector<oper::PartitionTable>> PartitionTablesOf(
    const Task& task, std::vector<RankFrequencyCurve>& curves) {
  curves.clear();
  curves.reserve(task.tables.size());
  std::vector<oper::PartitionTable> tables;
  const double local_batch = static_cast<double>(LocalBatchSize(task));
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    curves.push_back(table.access_profile.has_curve() ? CurveOf(table, task.batch_size)
                                                      : RankFrequencyCurve::Uniform(table.rows));
    if (curves.back().rows() != table.rows) {
      return absl::FailedPreconditionError(absl::StrCat(
          "tables[", t, "].access_profile: table \"", table.name, "\"'s access curve ranks ",
          curves.back().rows(), " rows, the table has ", table.rows));
    }
    tables.push_back({.table = &table,
                      .curve = &curves.back(),
                      .lookups_per_device = table.pooling_factor * local_batch});
  }
  return tables;
}

// A partitioning and its placement.
struct OperCandidate {
  double threshold = 0.0;
  std::vector<oper::Partition> partitions;
  oper::Placement placement;
  double balance = 0.0;  // the lower of the two degrees of balance
};

// OPER's section 4.2 (backtracking; C8): partition and place at `threshold`, halving it until the
// degrees of balance of lookups and memory both reach `target` or it would drop below
// `min_threshold`; the best balanced candidate (the coarsest among equals). With another rule:
// one partitioning at `threshold`.
absl::StatusOr<OperCandidate> SearchPlacement(const Task& task,
                                              const std::vector<oper::PartitionTable>& tables,
                                              const PlanningContext& context, PlacementRule rule,
                                              int& tried, bool& met) {
  double threshold = context.params.GetDouble("threshold");
  const bool backtrack = rule == PlacementRule::kOper;
  const double target = backtrack ? context.params.GetDouble("target_balance") : 0.0;
  const double min_threshold = backtrack ? context.params.GetDouble("min_threshold") : threshold;
  std::optional<OperCandidate> best;
  absl::Status last_error;
  tried = 0;
  met = false;
  while (true) {
    SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    ++tried;
    OperCandidate candidate{.threshold = threshold,
                            .partitions = oper::PartitionTables(tables, task.memory, threshold),
                            .placement = {},
                            .balance = 0.0};
    absl::StatusOr<oper::Placement> placement =
        oper::PlacePartitions(tables, candidate.partitions, task.topology.memory_bytes, rule);
    if (placement.ok()) {
      candidate.placement = *std::move(placement);
      std::vector<double> memory(candidate.placement.memory_bytes.begin(),
                                 candidate.placement.memory_bytes.end());
      const double lookups = DegreeOfBalance(candidate.placement.lookup_bytes);
      const double bytes = DegreeOfBalance(memory);
      candidate.balance = std::min(lookups, bytes);
      met = lookups >= target && bytes >= target;
      if (!best || candidate.balance > best->balance) best = std::move(candidate);
      if (met) break;
    } else {
      last_error = placement.status();
    }
    if (threshold / 2 < min_threshold) break;
    threshold /= 2;
  }
  if (!best) {
    return absl::FailedPreconditionError(
        absl::StrCat("task is infeasible for ", NameOf(rule), ": ", last_error.message()));
  }
  return *std::move(best);
}

// (C11) Per device, the spare memory replicas may take: the task's replication budget, within what
// the placement leaves free.
std::vector<int64_t> SpareMemory(const Task& task, const oper::Placement& placement) {
  std::vector<int64_t> spare;
  for (int d = 0; d < task.topology.num_devices(); ++d) {
    const int64_t capacity = task.topology.memory_bytes[d];
    const double budget = std::floor(task.replication_budget.BytesOn(capacity));
    const int64_t free = capacity - placement.memory_bytes[d];
    spare.push_back(
        std::max<int64_t>(0, std::min<int64_t>(free, static_cast<int64_t>(std::max(budget, 0.0)))));
  }
  return spare;
}

// (C9) The task's fetch costs (Topology's latencies and fetch_cost_us), which the planner's
// parameters override where given: a latency above 0, a non-empty matrix.
absl::StatusOr<FetchCostMatrix> FetchCostOf(const Task& task, const PlanningContext& context) {
  Topology topology = task.topology;
  const std::string& matrix = context.params.GetString("fetch_cost_us");
  if (!matrix.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        topology.fetch_cost_us,
        FetchCostMatrix::ParseRows(matrix, topology.num_devices(), "parameters.fetch_cost_us"));
  }
  if (const double intra = context.params.GetDouble("intra_host_latency_us"); intra > 0) {
    topology.intra_host_latency_us = intra;
  }
  if (const double inter = context.params.GetDouble("inter_host_latency_us"); inter > 0) {
    topology.inter_host_latency_us = inter;
  }
  return FetchCostMatrix::OfTopology(topology);
}

}  // namespace

OperPlanner::OperPlanner(PlacementRule rule) : rule_(rule) {
  info_.name = NameOf(rule);
  const ParamSpec threshold =
      OperSpec("threshold", ParamType::kDouble, "0.001",
               "Partition bound: the share of all tables' lookups (access-bounded) or memory "
               "(memory-bounded) one partition may hold; the paper's default 0.1%.",
               1e-9, 1.0);
  switch (rule) {
    case PlacementRule::kOper:
      info_.description =
          "OPER (ATC'24): rows by access rank cut into access- and memory-bounded partitions, "
          "placed greedily for balanced lookups and memory (threshold halved until balanced), "
          "then replicas and routes for inference (Algorithm 1) or duplication of hot "
          "partitions for training (Eq. 4-5) within the replication_budget; ROW_WISE by rank.";
      info_.params = {
          threshold,
          OperSpec("target_balance", ParamType::kDouble, "0.95",
                   "Degree of balance (min / max over devices) of lookups and of memory at which "
                   "the threshold search stops.",
                   0.0, 1.0),
          OperSpec("min_threshold", ParamType::kDouble, "1e-05",
                   "The smallest threshold the search tries; below it the best plan found is kept.",
                   1e-9, 1.0),
          OperSpec("intra_host_latency_us", ParamType::kDouble, "0",
                   "Fetch cost: latency of one row fetch between devices of one host; 0: the "
                   "task's topology.intra_host_latency_us.",
                   0.0),
          OperSpec("inter_host_latency_us", ParamType::kDouble, "0",
                   "Fetch cost: latency of one row fetch between hosts; 0: the task's "
                   "topology.inter_host_latency_us.",
                   0.0),
          OperSpec("fetch_cost_us", ParamType::kString, "",
                   "Fetch cost matrix L replacing the task's: M rows split by ';' of M "
                   "microseconds per row fetch split by ','; empty: the task's "
                   "topology.fetch_cost_us, else its latencies and links."),
      };
      break;
    case PlacementRule::kMemoryGreedy:
      info_.description =
          "OPER's Memory-Greedy baseline (ATC'24 Fig. 10): OPER's partitions, each, largest "
          "first, on the device with the least memory; no replicas; ROW_WISE by rank.";
      info_.params = {threshold};
      break;
    case PlacementRule::kAccessGreedy:
      info_.description =
          "OPER's Access-Greedy baseline (ATC'24 Fig. 10): OPER's partitions, each, hottest "
          "first, on the device with the fewest lookups; no replicas; ROW_WISE by rank.";
      info_.params = {threshold};
      break;
  }
  info_.sharding_types = {ShardingType::kRowWise};
  info_.uses_cost_model = false;
  info_.plans_row_layouts = true;
}

absl::StatusOr<Plan> OperPlanner::Run(const Task& task, const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  SHARDPLAN_RETURN_IF_ERROR(CheckRowSpreadingConstraints(task, info_.name));
  std::vector<RankFrequencyCurve> curves;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<oper::PartitionTable> tables,
                             PartitionTablesOf(task, curves));
  oper::OperOutcome outcome;
  SHARDPLAN_ASSIGN_OR_RETURN(
      const OperCandidate chosen,
      SearchPlacement(task, tables, context, rule_, outcome.thresholds_tried, outcome.balance_met));
  const int devices = task.topology.num_devices();
  oper::Copies copies = oper::OwnersOnly(chosen.placement.owner, devices);
  // The baselines have no fetch-cost parameters: they are costed on the task's fetch costs.
  SHARDPLAN_ASSIGN_OR_RETURN(const FetchCostMatrix cost,
                             rule_ == PlacementRule::kOper
                                 ? FetchCostOf(task, context)
                                 : FetchCostMatrix::OfTopology(task.topology));
  outcome.comm_before = oper::CommunicationMatrix(chosen.partitions, copies, cost);
  if (rule_ == PlacementRule::kOper) {
    SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    const std::vector<int64_t> spare = SpareMemory(task, chosen.placement);
    if (task.objective == Objective::kInference) {
      SHARDPLAN_RETURN_IF_ERROR(
          oper::ReplicateForInference(chosen.partitions, cost, spare, *context.stop, copies)
              .status());
    } else {
      const Topology& topology = task.topology;
      const double p2p = topology.single_host() ? topology.intra_host_bandwidth_gibps
                                                : topology.inter_host_bandwidth_gibps;
      outcome.duplication_frequency =
          oper::DuplicationFrequency(p2p, topology.all_reduce_bandwidth(), LocalBatchSize(task));
      oper::DuplicateHotPartitions(chosen.partitions, *outcome.duplication_frequency,
                                   LocalBatchSize(task), spare, copies);
    }
  }
  outcome.comm_after = oper::CommunicationMatrix(chosen.partitions, copies, cost);

  Plan plan;
  plan.tables = oper::OperShardings(tables, chosen.partitions, copies, task.topology);
  for (const TableSharding& sharding : plan.tables) outcome.routes += sharding.routes.size();
  outcome.threshold = chosen.threshold;
  outcome.partitions = &chosen.partitions;
  outcome.placement = &chosen.placement;
  outcome.copies = &copies;
  plan.parameters = oper::OperReport(outcome);
  return plan;
}

}  // namespace shardplan
