#ifndef SHARDPLAN_WIRE_PLAN_PROTO_H_
#define SHARDPLAN_WIRE_PLAN_PROTO_H_

// shardplan.v1.Plan <-> the domain's Plan.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/domain/plan.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::wire {

// Every field of `plan` (the search's column splits become Plan.column_splits). The fields a
// server adds (request_hash, selection, warnings) are left for it (server/result_proto.h).
v1::Plan PlanToProto(const Plan& plan);

// The plan's tables[].shards only, what a client sends to have a plan evaluated; errors name
// the field under `path` ("plan.tables[0].sharding_type: must be set ..."), and a table
// without shards is an error.
absl::StatusOr<Plan> PlanShardsFromProto(const v1::Plan& proto, absl::string_view path = "plan");

// Every field PlanToProto writes (a stored plan read back).
absl::StatusOr<Plan> PlanFromProto(const v1::Plan& proto, absl::string_view path = "plan");

}  // namespace shardplan::wire

#endif  // SHARDPLAN_WIRE_PLAN_PROTO_H_
