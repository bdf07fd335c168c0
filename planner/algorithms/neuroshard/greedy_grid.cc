#include "planner/algorithms/neuroshard/greedy_grid.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/memory.h"
#include "planner/search/memory_ledger.h"

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
  // A table that forbids TABLE_WISE but allows COLUMN_WISE is still searched whole: unsplit,
  // its plan is one COLUMN_WISE shard of all columns (PlanOfState), as TorchRec's is.
  for (const Table& table : task.tables) {
    if (table.Allows(ShardingType::kTableWise) || table.Allows(ShardingType::kColumnWise)) {
      continue;
    }
    std::vector<std::string> allowed;
    for (ShardingType type : table.allowed_sharding_types) {
      allowed.push_back(ShardingTypeName(type));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "task is infeasible for ", kAlgorithmName, ": table \"", table.name,
        "\" allows neither TABLE_WISE nor COLUMN_WISE (allowed: ", absl::StrJoin(allowed, ", "),
        ") and the cost model cannot cost its types or its layout does not fit"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(problem.units, PlacementUnits(task));
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
                                    const ShardCostCache& costs) {
  std::vector<GreedyItem> items = ItemsOf(problem, state);
  std::vector<ShardView> shards;
  for (GreedyItem& item : items) {
    shards.clear();
    AppendShards(problem, state, item.pieces, shards);
    item.cost = costs.ComputeCost(problem.cost_context, shards);
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

namespace {

// What every device holds after some items of one greedy run. Runs are reused across greedy
// calls of a thread (Start), so that a search's thousands of runs do not allocate afresh.
class GreedyRun {
 public:
  GreedyRun() : ledger(Topology{}) {}

  // An empty run over `problem` and `state`.
  void Start(const SearchProblem& problem, const SplitState& state, const ShardCostCache& costs) {
    problem_ = &problem;
    state_ = &state;
    costs_ = &costs;
    const Topology& topology = problem.task->topology;
    const size_t devices_count = static_cast<size_t>(topology.num_devices());
    ledger.Reset(topology);
    dim_sum.assign(devices_count, 0);
    compute.assign(devices_count, 0.0);
    devices.resize(devices_count);
    for (DeviceShards& device : devices) device.Clear();
    order.resize(devices_count);
    for (size_t d = 0; d < devices_count; ++d) order[d] = static_cast<int>(d);
    device_of_piece.assign(state.pieces().size(), 0);
  }

  // Goes on with `state`, a state whose pieces extend this run's (a split appends a piece).
  void Resume(const SplitState& state) {
    state_ = &state;
    device_of_piece.resize(state.pieces().size(), 0);
  }

  // Puts `item` on device d. Devices are kept in the order the greedy prefers them: (compute,
  // memory used, index) ascending, so the first device with room is the choice, found without
  // scanning all of them (1000 tables on 128 devices run ~10^9 device checks per plan
  // otherwise). Only the receiving device changes its key, so it alone moves, by binary search.
  void Place(const GreedyItem& item, int d) {
    ledger.Add(d, item.bytes);
    dim_sum[d] += item.dims;
    for (int i : item.pieces) {
      device_of_piece[i] = d;
      const Piece& piece = state_->pieces()[i];
      const Table& table = problem_->task->tables[piece.table];
      devices[d].Add(*costs_,
                     ShardView{.table = &table, .rows = table.rows, .columns = piece.columns});
    }
    // The whole shard set is costed again (compute is not additive); the cache makes it cheap.
    compute[d] = costs_->ComputeCost(problem_->cost_context, devices[d]);
    const auto prefer = [this](int a, int b) {
      return std::make_tuple(compute[a], ledger.used(a), a) <
             std::make_tuple(compute[b], ledger.used(b), b);
    };
    // d's key grew (more shards cost more, as a rule): rotate it right past the devices now
    // preferred to it, else left; the order is what erase + sorted insert would give, for a
    // shift of the devices in between only.
    const auto at = std::find(order.begin(), order.end(), d);
    const auto after = std::next(at);
    const auto right = std::lower_bound(after, order.end(), d, prefer);
    if (right != after) {
      std::rotate(at, after, right);
    } else {
      std::rotate(std::lower_bound(order.begin(), at, d, prefer), at, after);
    }
  }

  const SearchProblem* problem_ = nullptr;
  const SplitState* state_ = nullptr;
  const ShardCostCache* costs_ = nullptr;
  MemoryLedger ledger;
  std::vector<int64_t> dim_sum;
  std::vector<double> compute;
  std::vector<DeviceShards> devices;
  std::vector<int> order;
  std::vector<int32_t> device_of_piece;
};

// One greedy run and the caps (scale x mean dim, ascending) that made every choice of it so far.
struct Trajectory {
  GreedyRun run;
  std::vector<int> caps;  // indices into the caps, ascending by value
};

}  // namespace

// A greedy over a grid's scales paused before item `next`: its runs (forks) with their caps,
// and the caps that had failed already, with their errors.
struct GreedyCheckpoint {
  size_t next = 0;
  std::vector<Trajectory> runs;
  std::vector<std::pair<int, absl::Status>> failed;
};

namespace {

// The greedy at every cap of `caps` (ascending), forking where caps choose differently.
// `unplaced_bytes` (one cap only) as in Greedy. From `start` (a checkpoint of a state whose
// first start->next items are `items`' first ones) when given, else from the first item. With
// `paused`, a checkpoint is taken before each item index of `pause_at` (ascending), and the run
// ends after the last one (the outcomes are then incomplete).
std::vector<absl::StatusOr<std::vector<int32_t>>> RunGreedy(
    const SearchProblem& problem, const SplitState& state, const std::vector<GreedyItem>& items,
    const std::vector<double>& caps, const ShardCostCache& costs, int64_t* unplaced_bytes,
    const GreedyCheckpoint* start = nullptr, std::span<const size_t> pause_at = {},
    std::vector<std::shared_ptr<const GreedyCheckpoint>>* paused = nullptr) {
  const Task& task = *problem.task;
  std::vector<absl::StatusOr<std::vector<int32_t>>> outcomes(
      caps.size(), absl::InternalError("greedy: no outcome"));
  // This thread's runs, reused from call to call: runs[0, num_runs) are this call's.
  thread_local std::vector<Trajectory> runs;
  size_t num_runs = 1;
  std::vector<int> failed;  // caps whose outcome is an error, for checkpoints
  size_t first_item = 0;
  if (start != nullptr) {
    num_runs = start->runs.size();
    if (runs.size() < num_runs) runs.resize(num_runs);
    for (size_t r = 0; r < num_runs; ++r) {
      runs[r] = start->runs[r];
      runs[r].run.Resume(state);
    }
    for (const auto& [cap, error] : start->failed) {
      outcomes[cap] = error;
      failed.push_back(cap);
    }
    first_item = start->next;
  } else {
    if (runs.empty()) runs.emplace_back();
    runs[0].run.Start(problem, state, costs);
    runs[0].caps.clear();
    for (size_t c = 0; c < caps.size(); ++c) runs[0].caps.push_back(static_cast<int>(c));
  }
  size_t next_pause = 0;
  const auto take_checkpoint = [&](size_t index) {
    auto checkpoint = std::make_shared<GreedyCheckpoint>();
    checkpoint->next = index;
    checkpoint->runs.assign(runs.begin(), runs.begin() + num_runs);
    for (int c : failed) checkpoint->failed.emplace_back(c, outcomes[c].status());
    paused->push_back(std::move(checkpoint));
  };
  absl::Status first_unplaced;
  struct Choice {
    int device;
    size_t first, last;  // the caps on[first, last) of a run choose `device`
  };
  std::vector<Choice> choices;
  for (size_t index = first_item; index < items.size(); ++index) {
    if (paused != nullptr) {
      while (next_pause < pause_at.size() && pause_at[next_pause] == index) {
        take_checkpoint(index);
        ++next_pause;
      }
      if (next_pause == pause_at.size()) return outcomes;
    }
    const GreedyItem& item = items[index];
    const size_t live = num_runs;  // forks made for this item have placed it already
    for (size_t r = 0; r < live; ++r) {
      GreedyRun& run = runs[r].run;
      std::vector<int>& on = runs[r].caps;
      if (on.empty()) continue;
      if (const std::optional<int32_t>& pinned = problem.units[item.unit].pinned_device) {
        if (!run.ledger.Fits(*pinned, item.bytes)) {
          const absl::Status error = run.ledger.PinnedDoesNotFit(
              kAlgorithmName, task, UnitOfItem(problem, state, item));
          for (int c : on) {
            outcomes[c] = error;
            failed.push_back(c);
          }
          on.clear();
          continue;
        }
        run.Place(item, *pinned);
        continue;
      }
      // The caps of this run, ascending, take the first device in preference order with
      // memory room and dim_sum + dims within them: the caps >= that device's new dim sum
      // take it, the others look further down the order.
      choices.clear();
      size_t undecided = on.size();  // on[0, undecided) have not chosen yet
      bool any_memory = false;
      for (int d : run.order) {
        if (undecided == 0) break;
        if (!run.ledger.Fits(d, item.bytes)) continue;
        any_memory = true;
        const double needed = static_cast<double>(run.dim_sum[d] + item.dims);
        size_t first = undecided;
        while (first > 0 && !(needed > caps[on[first - 1]])) --first;
        if (first < undecided) {
          choices.push_back({d, first, undecided});
          undecided = first;
        }
      }
      if (undecided > 0) {
        const PlacementUnit unit = UnitOfItem(problem, state, item);
        if (!any_memory && unplaced_bytes != nullptr) {  // a single uncapped run: skip it
          if (first_unplaced.ok()) {
            first_unplaced = run.ledger.NoDeviceFits(kAlgorithmName, task, unit);
          }
          *unplaced_bytes = AddBytes(*unplaced_bytes, item.bytes);
          continue;
        }
        for (size_t k = 0; k < undecided; ++k) {
          const int c = on[k];
          failed.push_back(c);
          outcomes[c] = !any_memory ? run.ledger.NoDeviceFits(kAlgorithmName, task, unit)
                                    : absl::FailedPreconditionError(absl::StrCat(
                                          unit.Describe(task), " (", item.dims,
                                          " columns) exceeds the max device dim ", caps[c],
                                          " on every device with room"));
        }
      }
      if (choices.empty()) {
        on.clear();
        continue;
      }
      if (choices.size() > 1) {
        // Forks (rare): each copies the run as it was before this item, then places it.
        if (runs.size() < num_runs + choices.size() - 1) {
          runs.resize(num_runs + choices.size() - 1);  // may move runs[r]: `run`, `on` not used
        }
        for (size_t k = 1; k < choices.size(); ++k) {
          Trajectory& fork = runs[num_runs++];
          fork.run = runs[r].run;  // copy-assignment keeps the fork's buffers
          fork.caps.assign(runs[r].caps.begin() + choices[k].first,
                           runs[r].caps.begin() + choices[k].last);
          fork.run.Place(item, choices[k].device);
        }
      }
      std::vector<int>& kept = runs[r].caps;  // runs may have grown: refer to it afresh
      kept.erase(kept.begin() + choices[0].last, kept.end());
      kept.erase(kept.begin(), kept.begin() + choices[0].first);
      runs[r].run.Place(item, choices[0].device);
    }
  }
  if (paused != nullptr) {
    while (next_pause < pause_at.size()) take_checkpoint(pause_at[next_pause++]);
    return outcomes;
  }
  for (size_t r = 0; r < num_runs; ++r) {
    const Trajectory& trajectory = runs[r];
    for (int c : trajectory.caps) {
      outcomes[c] = first_unplaced.ok()
                        ? absl::StatusOr<std::vector<int32_t>>(trajectory.run.device_of_piece)
                        : absl::StatusOr<std::vector<int32_t>>(first_unplaced);
    }
  }
  return outcomes;
}

}  // namespace

absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            double scale, const ShardCostCache& costs,
                                            int64_t* unplaced_bytes) {
  return Greedy(problem, state, GreedyOrder(problem, state, costs), scale, costs, unplaced_bytes);
}

absl::StatusOr<std::vector<int32_t>> Greedy(const SearchProblem& problem, const SplitState& state,
                                            const std::vector<GreedyItem>& items, double scale,
                                            const ShardCostCache& costs,
                                            int64_t* unplaced_bytes) {
  return std::move(
      RunGreedy(problem, state, items, {scale * problem.mean_dim}, costs, unplaced_bytes)[0]);
}

namespace {

// The caps of `scales` (scale x mean dim), ascending, and the scale each came from.
struct SortedCaps {
  std::vector<double> caps;
  std::vector<size_t> scale_of_cap;
};
SortedCaps SortCaps(const SearchProblem& problem, const std::vector<double>& scales) {
  SortedCaps sorted;
  std::vector<double> caps;
  for (double scale : scales) caps.push_back(scale * problem.mean_dim);
  sorted.scale_of_cap.resize(scales.size());
  for (size_t i = 0; i < scales.size(); ++i) sorted.scale_of_cap[i] = i;
  std::stable_sort(sorted.scale_of_cap.begin(), sorted.scale_of_cap.end(),
                   [&](size_t a, size_t b) { return caps[a] < caps[b]; });
  for (size_t i : sorted.scale_of_cap) sorted.caps.push_back(caps[i]);
  return sorted;
}

// The grid's scales: grid_steps from 1.0 to 1.5 of the mean dim, or one uncapped run.
std::vector<double> GridScales(const GridOptions& options) {
  if (!options.grid_search) return {std::numeric_limits<double>::infinity()};
  if (options.grid_steps <= 1) return {1.0};
  std::vector<double> scales;
  for (int k = 0; k < options.grid_steps; ++k) {
    scales.push_back(1.0 + 0.5 * k / (options.grid_steps - 1));
  }
  return scales;
}

}  // namespace

std::vector<absl::StatusOr<std::vector<int32_t>>> GreedyAtScales(
    const SearchProblem& problem, const SplitState& state, const std::vector<GreedyItem>& items,
    const std::vector<double>& scales, const ShardCostCache& costs,
    const GreedyCheckpoint* resume) {
  const SortedCaps sorted = SortCaps(problem, scales);
  std::vector<absl::StatusOr<std::vector<int32_t>>> outcomes =
      RunGreedy(problem, state, items, sorted.caps, costs, nullptr, resume);
  std::vector<absl::StatusOr<std::vector<int32_t>>> in_order(
      scales.size(), absl::InternalError("greedy: no outcome"));
  for (size_t k = 0; k < outcomes.size(); ++k) {
    in_order[sorted.scale_of_cap[k]] = std::move(outcomes[k]);
  }
  return in_order;
}

std::vector<std::shared_ptr<const GreedyCheckpoint>> GreedyCheckpoints(
    const SearchProblem& problem, const SplitState& state, const std::vector<GreedyItem>& items,
    const GridOptions& options, const ShardCostCache& costs, const std::vector<size_t>& stops) {
  std::vector<std::shared_ptr<const GreedyCheckpoint>> checkpoints;
  const std::vector<double> scales = GridScales(options);
  if (stops.empty() || scales.back() == std::numeric_limits<double>::infinity()) {
    return checkpoints;
  }
  RunGreedy(problem, state, items, SortCaps(problem, scales).caps, costs, nullptr, nullptr, stops,
            &checkpoints);
  return checkpoints;
}

size_t CommonPrefix(const std::vector<GreedyItem>& a, const std::vector<GreedyItem>& b) {
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k].pieces == b[k].pieces && a[k].unit == b[k].unit &&
         a[k].bytes == b[k].bytes && a[k].dims == b[k].dims && a[k].cost == b[k].cost) {
    ++k;
  }
  return k;
}

GridResult GridSearch(const SearchProblem& problem, const SplitState& state,
                      const GridOptions& options, const ShardCostCache& costs,
                      const StopSignal& stop) {
  return GridSearch(problem, state, GreedyOrder(problem, state, costs), options, costs, stop,
                    nullptr);
}

GridResult GridSearch(const SearchProblem& problem, const SplitState& state,
                      const std::vector<GreedyItem>& items, const GridOptions& options,
                      const ShardCostCache& costs, const StopSignal& stop,
                      const GreedyCheckpoint* resume) {
  constexpr double kUncapped = std::numeric_limits<double>::infinity();
  const std::vector<double> scales = GridScales(options);

  GridResult result;
  const int num_devices = problem.task->topology.num_devices();
  std::vector<std::vector<int32_t>> scored;  // placements already scored by this grid
  auto consider = [&](absl::StatusOr<std::vector<int32_t>> placement) {
    ++result.greedy_runs;
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
    const double cost = CostOfPlacement(costs, problem.cost_context, shards).cost_ms;
    if (!result.feasible || cost < result.cost_ms) {
      result.feasible = true;
      result.cost_ms = cost;
      result.device_of_piece = *std::move(placement);
    }
  };
  // An uncapped run (alone, or the fallback) records the memory it could not place.
  auto uncapped = [&] {
    result.unplaced_bytes = 0;
    consider(Greedy(problem, state, items, kUncapped, costs, &result.unplaced_bytes));
  };
  if (!stop.Check().ok()) {
    result.stopped = true;
    return result;
  }
  if (scales.back() == kUncapped) {
    uncapped();
    return result;
  }
  for (absl::StatusOr<std::vector<int32_t>>& placement :
       GreedyAtScales(problem, state, items, scales, costs, resume)) {
    consider(std::move(placement));
  }
  if (!result.feasible) {
    if (!stop.Check().ok()) {
      result.stopped = true;
      return result;
    }
    uncapped();
  }
  return result;
}

}  // namespace shardplan::neuroshard
