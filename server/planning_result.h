#ifndef SHARDPLAN_SERVER_PLANNING_RESULT_H_
#define SHARDPLAN_SERVER_PLANNING_RESULT_H_

#include "planner/plan.h"

namespace shardplan {

// What a planning request yields: the plan and whether the cache supplied it.
struct PlanningResult {
  Plan plan;
  bool cache_hit = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_RESULT_H_
