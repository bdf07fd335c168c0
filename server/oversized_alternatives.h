#ifndef SHARDPLAN_SERVER_OVERSIZED_ALTERNATIVES_H_
#define SHARDPLAN_SERVER_OVERSIZED_ALTERNATIVES_H_

#include <string>

#include "costmodels/model_registry.h"
#include "planner/domain/task.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan {

// What a refusal of a table larger than every device tells the user to do instead: the
// algorithms that place a sharding type holding each such table of `task`, with those types
// and the latest loaded models that cost them for this task, e.g. "these would plan it:
// --algorithm torchrec (ROW_WISE, TABLE_ROW_WISE) under --model analytic@1". Algorithms that
// plan with a trained policy are left out (their own parameters decide).
std::string OversizedAlternatives(const Task& task, const AlgorithmRegistry& algorithms,
                                  const ModelRegistry& models);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_OVERSIZED_ALTERNATIVES_H_
