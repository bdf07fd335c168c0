#ifndef SHARDPLAN_SERVER_REQUEST_PROTO_H_
#define SHARDPLAN_SERVER_REQUEST_PROTO_H_

// shardplan.v1.PlanRequest <-> PlanningRequest: once when a call arrives, and for the plan
// store, which keeps the request as it was asked.

#include "absl/status/statusor.h"
#include "planner/domain/validation.h"
#include "server/planning_request.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan {

// The task converted (wire::TaskFromProto: "task.<field>" errors, RESOURCE_EXHAUSTED past
// `limits`), everything else as the client sent it.
absl::StatusOr<PlanningRequest> PlanningRequestFromProto(const v1::PlanRequest& proto,
                                                         const TaskLimits& limits);

v1::PlanRequest PlanningRequestToProto(const PlanningRequest& request);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_REQUEST_PROTO_H_
