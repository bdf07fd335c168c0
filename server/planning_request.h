#ifndef SHARDPLAN_SERVER_PLANNING_REQUEST_H_
#define SHARDPLAN_SERVER_PLANNING_REQUEST_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "planner/domain/task.h"
#include "planner/framework/plan_task.h"
#include "server/planning_result.h"

namespace shardplan {

// What a Plan, Replan or SubmitPlan call asks, in domain terms: its PlanRequest converted once
// (server/request_proto.h), carried to the end.
struct PlanningRequest {
  Task task;
  std::string algorithm;  // "": the server's default
  std::map<std::string, std::string> params;
  uint64_t seed = 0;
  std::string model;  // "", "name" or "name@version"
  bool bypass_cache = false;
  std::string job_key;  // "": the plan is named by no key
};

// A request that passed every check, with everything resolved once: ready to run now or on a
// job worker later (it holds its model and policy versions alive, so a reload that replaces or
// removes them meanwhile changes nothing for it).
struct PreparedRequest {
  // The request as the client asked it, tables in the client's order: what the plan store
  // keeps (a resumed job is prepared from it again) and job keys compare.
  PlanningRequest asked;
  // The task in canonical order (tables sorted by name), as sent: the cache key's. A plan is
  // computed on it with the typical histogram of each table sent without one where the model
  // reads histograms (PlanningEngine::TaskToCost), which only a computation pays for.
  Task task;
  ResolvedModel model;
  // The trained policy, for algorithms that plan with one (AlgorithmInfo::uses_policy); empty
  // (null policy) otherwise.
  ResolvedPolicy policy;
  PreparedPlanning planning;  // algorithm, model, policy, resolved parameters, seed
  std::string cache_key;      // PlanCacheKey; "" means "do not cache"
  // Why the algorithm, model and policy were chosen, where the request left them to the
  // server; "" when it named them all.
  std::string selection;
  // What the request itself is warned about, in request order: tables costed with an imputed
  // access histogram, tables and topologies outside the model's training data (but tables sent
  // without a histogram, which only their imputation checks: PlanningResult::
  // imputed_table_warnings), the hardware the server assumed.
  std::vector<PlanWarning> warnings;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_REQUEST_H_
