#include "planner/algorithms/alis/alis_replan.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "base/status_macros.h"
#include "planner/algorithms/alis/iterative_partition.h"
#include "planner/algorithms/alis/label_alignment.h"

namespace shardplan::alis {
namespace {

constexpr const char* kMethodNames[] = {"alis",   "base",     "full",  "vanilla",
                                        "static", "periodic", "greedy"};

// A seeded shard for `key` that depends on (seed, update, key) only, not on visiting order:
// Algorithm 3's random start of a new row, and a fresh start's.
ShardId RandomShard(uint64_t seed, int64_t update, uint64_t key, int shards) {
  return static_cast<ShardId>(SplitMix64(MixSeed(seed, static_cast<uint64_t>(update)) ^ key) %
                              static_cast<uint64_t>(shards));
}

std::vector<int64_t> WindowLoads(const RowShardMap& space, const CooccurrenceStats& window,
                                 bool by_bytes) {
  std::vector<int64_t> loads(window.rows.size(), 1);
  if (by_bytes) {
    for (size_t lid = 0; lid < loads.size(); ++lid) loads[lid] = space.RowBytesOf(window.rows[lid]);
  }
  return loads;
}

PartitionOptions PartitionOptionsOf(const Params& params, int shards, int64_t update,
                                    int iterations) {
  return PartitionOptions{.shards = shards,
                          .max_iterations = iterations,
                          .min_moved_share = params.min_moved_share,
                          .imbalance = params.imbalance,
                          .propagation_slack = params.propagation_slack,
                          .seed = MixSeed(params.seed, static_cast<uint64_t>(update))};
}

// The window's rows' shards under `plan`; rows it has not placed get Algorithm 3's random shard.
std::vector<ShardId> ShardsOfWindow(const RowShardMap& plan, const CooccurrenceStats& window,
                                    const Params& params, int64_t update, int64_t* new_rows) {
  std::vector<ShardId> shards(window.rows.size());
  for (size_t lid = 0; lid < shards.size(); ++lid) {
    shards[lid] = plan.ShardOf(window.rows[lid]);
    if (shards[lid] == kUnassignedShard) {
      shards[lid] = RandomShard(params.seed, update, window.rows[lid], plan.shards());
      if (new_rows != nullptr) ++*new_rows;
    }
  }
  return shards;
}

// The window's rows at each one's largest weight (ties: its partition shard), the cap repaired.
RowShardMap ArgmaxOverWindow(const RowShardMap& previous, const CooccurrenceStats& window,
                             const ShardWeights& weights, std::vector<ShardId> prefer,
                             const Params& params) {
  for (size_t lid = 0; lid < prefer.size(); ++lid) {
    const ShardId best = weights.Argmax(window.rows[lid], prefer[lid]);
    if (best != kUnassignedShard) prefer[lid] = best;
  }
  const std::vector<int64_t> loads = WindowLoads(previous, window, params.balance_bytes);
  RepairBalance(window, loads, previous.shards(),
                BalanceCap(loads, previous.shards(), params.imbalance), prefer);
  RowShardMap candidate = previous;
  for (size_t lid = 0; lid < prefer.size(); ++lid) candidate.Assign(window.rows[lid], prefer[lid]);
  return candidate;
}

// Rows unseen for this many updates have weights below 1e-3 of one increment: forgotten.
int64_t WeightHorizon(double decay) {
  if (decay >= 1.0) return -1;
  return static_cast<int64_t>(std::ceil(std::log(1e-3) / std::log(decay)));
}

void ForgetOldWeights(const Params& params, int64_t update, ShardWeights& weights) {
  const int64_t horizon = WeightHorizon(params.weight_decay);
  if (horizon >= 0) weights.ForgetRowsBefore(update - horizon);
}

// Light incremental sharding (Algorithms 2 and 3): the recent share partitioned from the
// previous plan, W[e][P_local(e)] += dW, argmax.
RowShardMap LightIncremental(const RowShardMap& previous, const CooccurrenceStats& window,
                             const Params& params, int64_t update, State& state,
                             UpdateStats& stats) {
  const CooccurrenceStats local = params.alpha >= 1.0 ? window : RecentShare(window, params.alpha);
  stats.window_rows = static_cast<int64_t>(local.rows.size());
  stats.window_requests = local.kept_requests();
  std::vector<ShardId> initial =
      ShardsOfWindow(previous, local, params, update, &stats.new_rows_placed);
  const std::vector<int64_t> loads = WindowLoads(previous, local, params.balance_bytes);
  PartitionResult partition = IterativePartition(
      local, std::move(initial), loads,
      PartitionOptionsOf(params, previous.shards(), update, params.max_iterations));
  stats.iterations = partition.iterations;
  stats.propagation_moves = partition.moves;
  stats.repair_moves = partition.repair_moves;
  for (size_t lid = 0; lid < local.rows.size(); ++lid) {
    const float requests =
        params.increment_by_requests ? static_cast<float>(local.row_requests[lid]) : 1.0f;
    state.weights.AddOne(local.rows[lid], update, params.weight_decay, partition.shard_of[lid],
                         params.weight_increment * requests);
  }
  ForgetOldWeights(params, update, state.weights);
  return ArgmaxOverWindow(previous, local, state.weights, std::move(partition.shard_of), params);
}

// Greedy neighbour weights (the paper's Fig. 3): every row of a request gains, per shard, the
// request's other lookups the previous plan puts there; then argmax. One batch per window, the
// previous plan fixed while it is read (ours: the paper updates request by request).
RowShardMap GreedyNeighbours(const RowShardMap& previous, const CooccurrenceStats& window,
                             const Params& params, int64_t update, State& state,
                             UpdateStats& stats) {
  const int shards = previous.shards();
  stats.window_rows = static_cast<int64_t>(window.rows.size());
  stats.window_requests = window.kept_requests();
  std::vector<ShardId> current =
      ShardsOfWindow(previous, window, params, update, &stats.new_rows_placed);
  std::vector<float> gains(window.rows.size() * shards, 0.0f);
  std::vector<int32_t> on_shard(shards);
  for (int64_t r = 0; r < window.kept_requests(); ++r) {
    std::fill(on_shard.begin(), on_shard.end(), 0);
    for (uint32_t lid : window.Request(r)) ++on_shard[current[lid]];
    for (uint32_t lid : window.Request(r)) {
      float* gain = &gains[static_cast<size_t>(lid) * shards];
      for (int s = 0; s < shards; ++s) gain[s] += static_cast<float>(on_shard[s]);
      gain[current[lid]] -= 1.0f;  // itself
    }
  }
  for (size_t lid = 0; lid < window.rows.size(); ++lid) {
    state.weights.Add(window.rows[lid], update, params.weight_decay,
                      {&gains[lid * shards], static_cast<size_t>(shards)});
  }
  ForgetOldWeights(params, update, state.weights);
  return ArgmaxOverWindow(previous, window, state.weights, std::move(current), params);
}

// A fresh start aligned to the previous plan's labels.
RowShardMap AlignedReshard(const RowShardMap& previous, const CooccurrenceStats& window,
                           const Params& params, int64_t update, UpdateStats& stats) {
  RowShardMap plan = FullReshard(previous, window, params, update, &stats);
  AlignShardLabels(previous, plan);
  return plan;
}

void PushHistory(RowShardMap candidate, int64_t update, int depth, State& state) {
  if (depth <= 0) return;
  state.history.push_back(HistoryPlan{.plan = std::move(candidate), .update = update});
  while (static_cast<int>(state.history.size()) > depth) state.history.erase(state.history.begin());
}

absl::Status CheckWindow(const RowShardMap& previous, const CooccurrenceStats& window) {
  if (absl::Status valid = ValidateCooccurrenceStats(window); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("window.", valid.message()));
  }
  for (size_t lid = 0; lid < window.rows.size(); ++lid) {
    if (!previous.Contains(window.rows[lid])) {
      return absl::InvalidArgumentError(
          absl::StrCat("window.rows[", lid, "]: (table ", TableOfKey(window.rows[lid]), ", row ",
                       RowOfKey(window.rows[lid]), ") is not a row of the previous plan's tables"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const char* MethodName(Method method) { return kMethodNames[static_cast<int>(method)]; }

absl::StatusOr<Method> ParseMethod(const std::string& name) {
  for (int m = 0; m < static_cast<int>(std::size(kMethodNames)); ++m) {
    if (name == kMethodNames[m]) return static_cast<Method>(m);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "method: \"", name, "\" is not one of alis, base, full, vanilla, static, periodic, greedy"));
}

absl::Status ValidateParams(const Params& p) {
  auto bad = [](const char* field, auto value, const char* range) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", value, " must be ", range));
  };
  if (!(p.alpha > 0.0 && p.alpha <= 1.0)) return bad("alpha", p.alpha, "in (0, 1]");
  if (!(p.beta >= 0.0 && p.beta <= 1.0)) return bad("beta", p.beta, "in [0, 1]");
  if (!(p.weight_increment > 0.0f && std::isfinite(p.weight_increment))) {
    return bad("weight_increment", p.weight_increment, "finite and > 0");
  }
  if (!(p.weight_decay > 0.0 && p.weight_decay <= 1.0)) {
    return bad("weight_decay", p.weight_decay, "in (0, 1]");
  }
  if (p.history_depth < 0 || p.history_depth > 64) {
    return bad("history_depth", p.history_depth, "in [0, 64]");
  }
  if (!(p.history_age_decay > 0.0 && p.history_age_decay <= 1.0)) {
    return bad("history_age_decay", p.history_age_decay, "in (0, 1]");
  }
  if (p.max_iterations < 1) return bad("max_iterations", p.max_iterations, ">= 1");
  if (p.full_max_iterations < 1) return bad("full_max_iterations", p.full_max_iterations, ">= 1");
  if (!(p.min_moved_share >= 0.0 && p.min_moved_share <= 1.0)) {
    return bad("min_moved_share", p.min_moved_share, "in [0, 1]");
  }
  if (!(p.imbalance >= 0.0 && std::isfinite(p.imbalance))) {
    return bad("imbalance", p.imbalance, "finite and >= 0");
  }
  if (!(p.propagation_slack >= 0.0 && std::isfinite(p.propagation_slack))) {
    return bad("propagation_slack", p.propagation_slack, "finite and >= 0");
  }
  if (p.period < 1) return bad("period", p.period, ">= 1");
  if (p.budget.rows < -1) return bad("budget.rows", p.budget.rows, ">= 0 (or -1: no limit)");
  if (p.budget.bytes < -1) return bad("budget.bytes", p.budget.bytes, ">= 0 (or -1: no limit)");
  return absl::OkStatus();
}

void RecordMeasuredCost(State& state, double cost) {
  if (!state.history.empty()) state.history.back().cost = cost;
}

RowShardMap FullReshard(const RowShardMap& space, const CooccurrenceStats& window,
                        const Params& params, int64_t update, UpdateStats* stats) {
  RowShardMap plan = space;
  const uint64_t start_seed = MixSeed(params.seed, 0x5eed);  // apart from Algorithm 3's draws
  for (size_t t = 0; t < plan.tables().size(); ++t) {
    std::vector<ShardId>& shards = plan.MutableTableShards(static_cast<int>(t));
    for (size_t row = 0; row < shards.size(); ++row) {
      shards[row] = RandomShard(start_seed, update,
                                PackRowKey(static_cast<int64_t>(t), static_cast<int64_t>(row)),
                                plan.shards());
    }
  }
  std::vector<ShardId> initial = ShardsOfWindow(plan, window, params, update, nullptr);
  const std::vector<int64_t> loads = WindowLoads(plan, window, params.balance_bytes);
  const PartitionResult partition = IterativePartition(
      window, std::move(initial), loads,
      PartitionOptionsOf(params, plan.shards(), update, params.full_max_iterations));
  for (size_t lid = 0; lid < window.rows.size(); ++lid) {
    plan.Assign(window.rows[lid], partition.shard_of[lid]);
  }
  if (stats != nullptr) {
    stats->window_rows = static_cast<int64_t>(window.rows.size());
    stats->window_requests = window.kept_requests();
    stats->iterations = partition.iterations;
    stats->propagation_moves = partition.moves;
    stats->repair_moves = partition.repair_moves;
  }
  return plan;
}

RowShardMap RangePlan(const RowShardMap& space) {
  RowShardMap plan = space;
  const int64_t shards = plan.shards();
  for (size_t t = 0; t < plan.tables().size(); ++t) {
    std::vector<ShardId>& rows = plan.MutableTableShards(static_cast<int>(t));
    const int64_t n = static_cast<int64_t>(rows.size());
    const int64_t block = (n + shards - 1) / shards;
    for (int64_t row = 0; row < n; ++row) rows[row] = static_cast<ShardId>(row / block);
  }
  return plan;
}

RowShardMap HashPlan(const RowShardMap& space, uint64_t seed) {
  RowShardMap plan = space;
  for (size_t t = 0; t < plan.tables().size(); ++t) {
    std::vector<ShardId>& rows = plan.MutableTableShards(static_cast<int>(t));
    for (size_t row = 0; row < rows.size(); ++row) {
      const uint64_t key = PackRowKey(static_cast<int64_t>(t), static_cast<int64_t>(row));
      rows[row] = static_cast<ShardId>(SplitMix64(seed ^ key) % plan.shards());
    }
  }
  return plan;
}

absl::StatusOr<Update> Replan(const RowShardMap& previous, State state,
                              const CooccurrenceStats& window, const Params& params) {
  SHARDPLAN_RETURN_IF_ERROR(ValidateParams(params));
  SHARDPLAN_RETURN_IF_ERROR(CheckWindow(previous, window));
  if (state.weights.shards() == 0) state.weights = ShardWeights(previous.shards());
  if (state.weights.shards() != previous.shards()) {
    return absl::InvalidArgumentError(absl::StrCat("state.weights: ", state.weights.shards(),
                                                   " shards, the previous plan has ",
                                                   previous.shards()));
  }
  for (size_t i = 0; i < state.history.size(); ++i) {
    if (state.history[i].plan.shards() != previous.shards() ||
        state.history[i].plan.total_rows() != previous.total_rows()) {
      return absl::InvalidArgumentError(
          absl::StrCat("state.history[", i,
                       "]: its plan's tables or shards differ from the "
                       "previous plan's"));
    }
  }
  const int64_t update = state.updates;
  UpdateStats stats;
  RowShardMap plan;
  switch (params.method) {
    case Method::kStatic:
      plan = previous;
      break;
    case Method::kPeriodic:
      plan = (update + 1) % params.period == 0
                 ? AlignedReshard(previous, window, params, update, stats)
                 : previous;
      break;
    case Method::kVanilla:
      plan =
          AlignedReshard(previous, params.alpha >= 1.0 ? window : RecentShare(window, params.alpha),
                         params, update, stats);
      break;
    case Method::kFull: {
      RowShardMap candidate = AlignedReshard(previous, window, params, update, stats);
      plan = AggregatePlans(candidate, state.history, update,
                            {.beta = params.beta, .age_decay = params.history_age_decay});
      PushHistory(std::move(candidate), update, params.history_depth, state);
      break;
    }
    case Method::kAlis:
    case Method::kBase: {
      RowShardMap candidate = LightIncremental(previous, window, params, update, state, stats);
      if (params.method == Method::kBase) {
        plan = std::move(candidate);
        break;
      }
      plan = AggregatePlans(candidate, state.history, update,
                            {.beta = params.beta, .age_decay = params.history_age_decay});
      PushHistory(std::move(candidate), update, params.history_depth, state);
      break;
    }
    case Method::kGreedy:
      plan = GreedyNeighbours(previous, window, params, update, state, stats);
      break;
  }
  if (params.budget.limited()) {
    stats.budget = ApplyMigrationBudget(
        previous, window, params.budget,
        {.by_bytes = params.balance_bytes, .imbalance = params.imbalance}, plan);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(RowShardMapDelta delta,
                             DiffRowShardMaps(previous, plan, /*list_moves=*/false));
  if (!params.budget.limited()) {
    stats.budget.proposed_moves = stats.budget.kept_moves = delta.rows_moved;
  }
  state.updates = update + 1;
  stats.weight_rows = state.weights.rows();
  stats.state_bytes = state.weights.MemoryBytes();
  for (const HistoryPlan& entry : state.history) stats.state_bytes += entry.plan.MemoryBytes();
  return Update{.plan = std::move(plan),
                .state = std::move(state),
                .delta = std::move(delta),
                .stats = stats};
}

}  // namespace shardplan::alis
