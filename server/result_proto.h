#ifndef SHARDPLAN_SERVER_RESULT_PROTO_H_
#define SHARDPLAN_SERVER_RESULT_PROTO_H_

// PlanningResult <-> shardplan.v1.Plan: the domain plan (wire/plan_proto.h) with what the
// server adds to it (request_hash, selection, warnings). What the API answers and the plan store
// keeps.

#include "absl/status/statusor.h"
#include "server/planning_result.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan {

v1::Plan ResultToProto(const PlanningResult& result);

// The plan and the server's fields; cache_hit and joined stay false (they are a call's, not a
// plan's).
absl::StatusOr<PlanningResult> ResultFromProto(const v1::Plan& proto);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_RESULT_PROTO_H_
