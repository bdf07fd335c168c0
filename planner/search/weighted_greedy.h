#ifndef SHARDPLAN_PLANNER_SEARCH_WEIGHTED_GREEDY_H_
#define SHARDPLAN_PLANNER_SEARCH_WEIGHTED_GREEDY_H_

// The reference's four weighted greedy baselines as one routine, shared by the greedy planners
// (planner/algorithms/greedy/) and NeuroShard's baseline portfolio
// (planner/algorithms/neuroshard/baseline_portfolio.h).

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"

namespace shardplan {

// The per-table cost a weighted greedy balances (NeuroShard's sharders.py).
enum class GreedyWeight {
  kDim,         // dim_greedy: dim
  kSize,        // size_greedy: memory bytes
  kLookup,      // lookup_greedy: dim x pooling factor
  kSizeLookup,  // size_lookup_greedy: dim x pooling factor x log10(rows)
};

// "dim_greedy", "size_greedy", "lookup_greedy", "size_lookup_greedy".
std::string GreedyWeightAlgorithmName(GreedyWeight weight);

// The weight of one table.
double GreedyTableWeight(GreedyWeight weight, const Table& table, const MemoryOptions& memory);

// Units (tables, or colocation groups summed) are taken largest first by (weight, size, index);
// each goes to the device with the smallest running weight sum among devices that still hold it,
// ties to the smaller memory used, then the lower index. Pinned units go first, in index order,
// to their devices. A unit that fits nowhere is an infeasibility error naming it (never an
// over-full device). Table-wise only. Returns the plan's shards (tables[]); `on_placed(k, n)`,
// when set, after each tenth of the n units.
absl::StatusOr<Plan> WeightedGreedyPlan(
    const Task& task, GreedyWeight weight, const StopSignal& stop,
    const std::function<void(size_t placed, size_t total)>& on_placed = {});

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_SEARCH_WEIGHTED_GREEDY_H_
