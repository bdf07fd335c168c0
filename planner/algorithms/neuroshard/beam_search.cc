#include "planner/algorithms/neuroshard/beam_search.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "base/worker_pool.h"

namespace shardplan::neuroshard {
namespace {

// The n indices with the largest value, ties to the lower index.
std::vector<int> TopN(const std::vector<double>& values, int n) {
  std::vector<int> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] > values[b]; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(n)));
  return order;
}

// One split candidate of a beam step: the state, its greedy order, and where its grid's greedy
// may resume (the parent's greedy paused before the first item where their orders differ).
struct Candidate {
  SplitState state;
  std::vector<GreedyItem> items;
  std::shared_ptr<const GreedyCheckpoint> resume;  // null: from the first item
};

// The candidates of `parent`: every split of SplitCandidates, each with its checkpoint. A split
// changes the order only from the split piece's item on, so the children share a prefix with
// the parent, and one paused run of the parent's greedy serves them all.
std::vector<Candidate> CandidatesOf(const SearchProblem& problem, const SplitState& parent,
                                    const BeamOptions& options, const ShardCostCache& costs) {
  std::vector<Candidate> candidates;
  const std::vector<GreedyItem> parent_items = GreedyOrder(problem, parent, costs);
  std::vector<size_t> shared;
  for (int index : SplitCandidates(problem, parent, options.candidates, costs)) {
    Candidate& candidate = candidates.emplace_back(Candidate{parent, {}, nullptr});
    candidate.state.Split(index);
    candidate.items = GreedyOrder(problem, candidate.state, costs);
    shared.push_back(CommonPrefix(parent_items, candidate.items));
  }
  std::vector<size_t> stops;
  for (size_t k : shared) {
    if (k > 0) stops.push_back(k);
  }
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  const std::vector<std::shared_ptr<const GreedyCheckpoint>> checkpoints =
      GreedyCheckpoints(problem, parent, parent_items, options.grid, costs, stops);
  if (checkpoints.size() == stops.size()) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const auto at = std::lower_bound(stops.begin(), stops.end(), shared[i]);
      if (at != stops.end() && *at == shared[i]) candidates[i].resume = checkpoints[at - stops.begin()];
    }
  }
  return candidates;
}

// Grid-searches every candidate on `pool`; results[i] belongs to candidates[i], whichever
// thread ran it.
std::vector<GridResult> GridSearchAll(const SearchProblem& problem,
                                      const std::vector<Candidate>& candidates,
                                      const GridOptions& options, const ShardCostCache& costs,
                                      const StopSignal& stop, WorkerPool& pool) {
  std::vector<GridResult> results(candidates.size());
  pool.Run(static_cast<int64_t>(candidates.size()), [&](int64_t i, int /*worker*/) {
    const Candidate& candidate = candidates[i];
    results[i] = GridSearch(problem, candidate.state, candidate.items, options, costs, stop,
                            candidate.resume.get());
  });
  return results;
}

}  // namespace

std::vector<int> SplitCandidates(const SearchProblem& problem, const SplitState& state, int n,
                                 const ShardCostCache& costs) {
  const std::vector<Piece>& pieces = state.pieces();
  std::vector<int> candidates;
  if (static_cast<size_t>(n) > pieces.size()) {
    for (size_t i = 0; i < pieces.size(); ++i) candidates.push_back(static_cast<int>(i));
  } else {
    std::vector<double> bytes(pieces.size());
    std::vector<double> cost(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Table& table = problem.task->tables[pieces[i].table];
      const ShardView shard{.table = &table, .rows = table.rows, .columns = pieces[i].columns};
      bytes[i] = static_cast<double>(PieceBytes(problem, pieces[i]));
      cost[i] = costs.ComputeCost(problem.cost_context, {&shard, 1});
    }
    candidates = TopN(bytes, n);
    const std::vector<int> by_cost = TopN(cost, n);
    candidates.insert(candidates.end(), by_cost.begin(), by_cost.end());
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  std::erase_if(candidates, [&](int i) {
    return !problem.splittable[pieces[i].table] || !HalfIsSplittable(pieces[i].columns);
  });
  return candidates;
}

SearchResult BeamSearch(const SearchProblem& problem, const BeamOptions& options,
                        const ShardCostCache& costs, const StopSignal& stop,
                        const std::function<void(const PlanningProgress&)>& on_progress) {
  SearchResult result;
  result.state = SplitState(*problem.task);
  auto account = [&](const GridResult& grid) {
    result.greedy_runs += grid.greedy_runs;
    result.plan_evaluations += grid.plan_evaluations;
  };
  auto consider = [&](const SplitState& state, GridResult& grid) {
    ++result.candidates_evaluated;
    if (!grid.feasible || (result.feasible && grid.cost_ms >= result.cost_ms)) return;
    result.feasible = true;
    result.cost_ms = grid.cost_ms;
    result.state = state;
    result.device_of_piece = std::move(grid.device_of_piece);
  };

  GridResult unsplit = GridSearch(problem, result.state, options.grid, costs, stop);
  account(unsplit);
  if (unsplit.stopped) {
    result.stopped = true;
    return result;
  }
  result.unsplit_failure = unsplit.failure;
  const double unsplit_cost = unsplit.cost_ms;
  consider(SplitState(result.state), unsplit);
  if (!options.beam_search) return result;

  struct BeamEntry {
    SplitState state;
    double cost_ms;
    int64_t unplaced_bytes;
  };
  std::vector<BeamEntry> beam = {{result.state, unsplit_cost, unsplit.unplaced_bytes}};
  WorkerPool pool(std::max(1, options.threads));  // one pool for every step's candidates
  for (int step = 1; step <= options.max_steps; ++step) {
    if (!stop.Check().ok()) {
      result.stopped = true;
      break;
    }
    std::vector<Candidate> candidates;
    for (const BeamEntry& entry : beam) {
      std::vector<Candidate> of_entry = CandidatesOf(problem, entry.state, options, costs);
      std::move(of_entry.begin(), of_entry.end(), std::back_inserter(candidates));
    }
    if (candidates.empty()) break;
    std::vector<GridResult> grids =
        GridSearchAll(problem, candidates, options.grid, costs, stop, pool);

    std::vector<BeamEntry> next;
    for (size_t i = 0; i < candidates.size(); ++i) {
      account(grids[i]);
      if (grids[i].stopped) {
        result.stopped = true;
        continue;  // an unfinished grid search is not a score
      }
      next.push_back({candidates[i].state, grids[i].cost_ms, grids[i].unplaced_bytes});
      consider(candidates[i].state, grids[i]);
    }
    if (result.stopped) break;
    // Infeasible states (infinite cost) rank by the memory left unplaced, so the beam heads for
    // splits of the tables that do not fit; the earlier split sequence wins remaining ties.
    std::stable_sort(next.begin(), next.end(), [](const BeamEntry& a, const BeamEntry& b) {
      return std::tie(a.cost_ms, a.unplaced_bytes, a.state.steps()) <
             std::tie(b.cost_ms, b.unplaced_bytes, b.state.steps());
    });
    if (next.size() > static_cast<size_t>(options.beam_width)) next.resize(options.beam_width);
    beam = std::move(next);
    if (on_progress) {
      on_progress(PlanningProgress{absl::StrCat("neuroshard: step ", step, "/", options.max_steps,
                                                ", best cost ", result.cost_ms, " ms"),
                                   static_cast<double>(step) / options.max_steps});
    }
  }
  return result;
}

}  // namespace shardplan::neuroshard
