#ifndef SHARDPLAN_SERVER_PROTO_CONVERSION_H_
#define SHARDPLAN_SERVER_PROTO_CONVERSION_H_

#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm.h"
#include "server/job_manager.h"
#include "server/planning_engine.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan {

// The server's own shardplan.v1 messages <-> its types. Tasks and plans are wire/'s
// (wire/task_proto.h, wire/plan_proto.h); errors name the request field ("task.tables[2]...").

// A PlanRequest in domain terms (the task converted, everything else as the client sent it).
absl::StatusOr<PlanningRequest> PlanningRequestFromProto(const v1::PlanRequest& proto,
                                                         const TaskLimits& limits);

void AlgorithmInfoToProto(const AlgorithmInfo& info, bool is_default, v1::AlgorithmInfo* proto);
void ModelEntryToProto(const ModelRegistry::Entry& entry, v1::ModelInfo* proto);
void JobSnapshotToProto(const JobSnapshot& job, v1::JobStatus* proto);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PROTO_CONVERSION_H_
