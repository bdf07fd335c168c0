#ifndef SHARDPLAN_SERVER_PLANNING_RESULT_H_
#define SHARDPLAN_SERVER_PLANNING_RESULT_H_

#include "planner/domain/plan.h"

namespace shardplan {

// What a planning request yields: the plan and where it came from.
struct PlanningResult {
  Plan plan;
  bool cache_hit = false;  // the plan cache supplied it
  // An identical request in flight computed it and this call waited for that (SingleFlight).
  bool joined = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_RESULT_H_
