#include "planner/neuroshard/greedy_grid.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "planner/evaluation.h"
#include "planner/memory.h"
#include "planner/status_macros.h"

namespace shardplan::neuroshard {
namespace {

std::vector<GreedyItem> ItemsOf(const SearchProblem& problem, const SplitState& state) {
  std::vector<GreedyItem> items;
  std::vector<int> item_of_unit(problem.units.size(), -1);
  const std::vector<Piece>& pieces = state.pieces();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const int unit = problem.unit_of_table[pieces[i].table];
    // Pieces of a splittable table move alone; a colocated or pinned unit moves whole.
    const bool whole_unit = !problem.splittable[pieces[i].table];
    int item = whole_unit ? item_of_unit[unit] : -1;
    if (item < 0) {
      item = static_cast<int>(items.size());
      items.emplace_back().unit = unit;
      if (whole_unit) item_of_unit[unit] = item;
    }
    items[item].pieces.push_back(static_cast<int>(i));
    items[item].bytes = AddBytes(items[item].bytes, PieceBytes(problem, pieces[i]));
    items[item].dims += pieces[i].columns;
  }
  return items;
}

void AppendShards(const SearchProblem& problem, const SplitState& state,
                  const std::vector<int>& pieces, std::vector<ShardView>& shards) {
  for (int i : pieces) {
    const Piece& piece = state.pieces()[i];
    const Table& table = problem.task->tables[piece.table];
    shards.push_back(ShardView{.table = &table, .rows = table.rows, .columns = piece.columns});
  }
}

PlacementUnit UnitOfItem(const SearchProblem& problem, const SplitState& state,
                         const GreedyItem& item) {
  PlacementUnit unit = problem.units[item.unit];
  if (problem.splittable[state.pieces()[item.pieces[0]].table]) unit.bytes = item.bytes;
  return unit;
}

}  // namespace

absl::StatusOr<SearchProblem> MakeSearchProblem(const Task& task, bool allow_splits) {
  SearchProblem problem;
  problem.task = &task;
  problem.cost_context = CostContext::For(task);
  SHARDPLAN_ASSIGN_OR_RETURN(problem.units, TableWiseUnits(task, kAlgorithmName));
  problem.unit_of_table.assign(task.tables.size(), 0);
  problem.splittable.assign(task.tables.size(), false);
  for (size_t u = 0; u < problem.units.size(); ++u) {
    const PlacementUnit& unit = problem.units[u];
    for (int t : unit.tables) problem.unit_of_table[t] = static_cast<int>(u);
    problem.splittable[unit.tables[0]] =
        allow_splits && unit.tables.size() == 1 && !unit.pinned_device &&
        task.tables[unit.tables[0]].Allows(ShardingType::kColumnWise);
  }
  int64_t dim_sum = 0;
  for (const Table& table : task.tables) dim_sum += table.dim;
  problem.mean_dim = static_cast<double>(dim_sum) / std::max(1, task.topology.num_devices());
  return problem;
}

int64_t PieceBytes(const SearchProblem& problem, const Piece& piece) {
  const Table& table = problem.task->tables[piece.table];
  return ShardMemoryBytes(table, table.rows, piece.columns, problem.task->memory);
}

std::vector<GreedyItem> GreedyOrder(const SearchProblem& problem, const SplitState& state,
                                    const CostModel& model) {
  std::vector<GreedyItem> items = ItemsOf(problem, state);
  std::vector<ShardView> shards;
  for (GreedyItem& item : items) {
    shards.clear();
    AppendShards(problem, state, item.pieces, shards);
    item.cost = model.ComputeCost(problem.cost_context, shards);
  }
  // Pinned items go first, in index order. The others follow by cost: items are in ascending
  // augmented index order, so a stable ascending sort read backwards is the reference's order,
  // equal costs popping the higher index first.
  std::vector<GreedyItem> ordered;
  std::vector<GreedyItem> free_items;
  for (GreedyItem& item : items) {
    (problem.units[item.unit].pinned_device ? ordered : free_items).push_back(std::move(item));
  }
  std::stable_sort(free_items.begin(), free_items.end(),
                   [](const GreedyItem& a, const GreedyItem& b) { return a.cost < b.cost; });
  ordered.insert(ordered.end(), std::make_move_iterator(free_items.rbegin()),
                 std::make_move_iterator(free_items.rend()));
  return ordered;
}

absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            double scale, const CostModel& model,
                                            int64_t* unplaced_bytes) {
  return Greedy(problem, state, GreedyOrder(problem, state, model), scale, model, unplaced_bytes);
}

absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            const std::vector<GreedyItem>& items, double scale,
                                            const CostModel& model, int64_t* unplaced_bytes) {
  const Task& task = *problem.task;
  const int num_devices = task.topology.num_devices();
  std::vector<ShardView> shards;
  MemoryLedger ledger(task.topology);
  std::vector<int64_t> dim_sum(num_devices, 0);
  std::vector<double> compute(num_devices, 0.0);
  std::vector<std::vector<int>> pieces_on(num_devices);
  std::vector<int32_t> device_of_piece(state.pieces().size(), 0);

  // Devices in the order the greedy prefers them: (compute, memory used, index) ascending, so
  // the first device with room is the choice, found without scanning all of them (1000 tables
  // on 128 devices run ~10^9 device checks per plan otherwise). Only the device that receives
  // an item changes its key, so it alone moves, by binary search among the others.
  auto prefer = [&](int a, int b) {
    return std::make_tuple(compute[a], ledger.used(a), a) <
           std::make_tuple(compute[b], ledger.used(b), b);
  };
  std::vector<int> order(num_devices);
  for (int d = 0; d < num_devices; ++d) order[d] = d;
  auto place = [&](const GreedyItem& item, int d) {
    ledger.Add(d, item.bytes);
    dim_sum[d] += item.dims;
    for (int i : item.pieces) device_of_piece[i] = d;
    pieces_on[d].insert(pieces_on[d].end(), item.pieces.begin(), item.pieces.end());
    shards.clear();
    AppendShards(problem, state, pieces_on[d], shards);
    // The whole shard set is re-predicted (compute is not additive); the cache makes it cheap.
    compute[d] = model.ComputeCost(problem.cost_context, shards);
    order.erase(std::find(order.begin(), order.end(), d));
    order.insert(std::lower_bound(order.begin(), order.end(), d, prefer), d);
  };

  const double dim_cap = scale * problem.mean_dim;
  absl::Status first_unplaced;
  for (const GreedyItem& item : items) {
    if (const std::optional<int32_t>& pinned = problem.units[item.unit].pinned_device) {
      if (!ledger.Fits(*pinned, item.bytes)) {
        return ledger.PinnedDoesNotFit(kAlgorithmName, task, UnitOfItem(problem, state, item));
      }
      place(item, *pinned);
      continue;
    }
    int best = -1;
    bool any_memory = false;
    for (int d : order) {
      if (!ledger.Fits(d, item.bytes)) continue;
      any_memory = true;
      if (static_cast<double>(dim_sum[d] + item.dims) > dim_cap) continue;
      best = d;
      break;
    }
    if (best < 0) {
      const PlacementUnit unit = UnitOfItem(problem, state, item);
      if (!any_memory && unplaced_bytes != nullptr) {
        if (first_unplaced.ok()) first_unplaced = ledger.NoDeviceFits(kAlgorithmName, task, unit);
        *unplaced_bytes = AddBytes(*unplaced_bytes, item.bytes);
        continue;
      }
      if (!any_memory) return ledger.NoDeviceFits(kAlgorithmName, task, unit);
      return absl::FailedPreconditionError(absl::StrCat(unit.Describe(task), " (", item.dims,
                                                        " columns) exceeds the max device dim ",
                                                        dim_cap, " on every device with room"));
    }
    place(item, best);
  }
  if (!first_unplaced.ok()) return first_unplaced;
  return device_of_piece;
}

GridResult GridSearch(const SearchProblem& problem, const SplitState& state,
                      const GridOptions& options, const CostModel& model, const StopSignal& stop) {
  constexpr double kUncapped = std::numeric_limits<double>::infinity();
  std::vector<double> scales;
  if (!options.grid_search) {
    scales.push_back(kUncapped);
  } else if (options.grid_steps <= 1) {
    scales.push_back(1.0);
  } else {
    for (int k = 0; k < options.grid_steps; ++k) {
      scales.push_back(1.0 + 0.5 * k / (options.grid_steps - 1));
    }
  }

  GridResult result;
  const int num_devices = problem.task->topology.num_devices();
  const std::vector<GreedyItem> items = GreedyOrder(problem, state, model);
  std::vector<std::vector<int32_t>> scored;  // placements already scored by this grid
  auto try_scale = [&](double scale) {
    ++result.greedy_runs;
    result.unplaced_bytes = 0;
    absl::StatusOr<std::vector<int32_t>> placement = Greedy(
        problem, state, items, scale, model, scale == kUncapped ? &result.unplaced_bytes : nullptr);
    if (!placement.ok()) {
      result.failure = placement.status();
      return;
    }
    // Neighbouring scales often give the same placement: score it once (it could only tie).
    if (std::find(scored.begin(), scored.end(), *placement) != scored.end()) return;
    scored.push_back(*placement);
    std::vector<std::vector<int>> pieces_on(num_devices);
    for (size_t i = 0; i < placement->size(); ++i) {
      pieces_on[(*placement)[i]].push_back(static_cast<int>(i));
    }
    std::vector<std::vector<ShardView>> shards(num_devices);
    for (int d = 0; d < num_devices; ++d) AppendShards(problem, state, pieces_on[d], shards[d]);
    ++result.plan_evaluations;
    const double cost = CostOfPlacement(model, problem.cost_context, shards).cost_ms;
    if (!result.feasible || cost < result.cost_ms) {
      result.feasible = true;
      result.cost_ms = cost;
      result.device_of_piece = *std::move(placement);
    }
  };
  for (double scale : scales) {
    if (!stop.Check().ok()) {
      result.stopped = true;
      return result;
    }
    try_scale(scale);
  }
  if (!result.feasible && scales.back() != kUncapped) {
    if (!stop.Check().ok()) {
      result.stopped = true;
      return result;
    }
    try_scale(kUncapped);
  }
  return result;
}

}  // namespace shardplan::neuroshard
