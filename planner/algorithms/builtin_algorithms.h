#ifndef SHARDPLAN_PLANNER_ALGORITHMS_BUILTIN_ALGORITHMS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_BUILTIN_ALGORITHMS_H_

#include "planner/framework/algorithm_registry.h"

namespace shardplan {

// Every built-in algorithm: random, size_greedy, dim_greedy, lookup_greedy,
// size_lookup_greedy, exhaustive, neuroshard, torchrec, autoshard, dreamshard, flexshard. A new
// algorithm is registered here.
AlgorithmRegistry BuiltinAlgorithms();

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_BUILTIN_ALGORITHMS_H_
