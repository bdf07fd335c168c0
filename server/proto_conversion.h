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

// shardplan.v1 messages <-> the planner's domain types. Errors are INVALID_ARGUMENT naming the
// request field ("task.tables[2].element_type: ..."), RESOURCE_EXHAUSTED when counts exceed
// `limits` (checked before anything is allocated for them).

// Shapes and enums only; ValidateTask checks the values. batch_size 0 becomes the default.
absl::StatusOr<Task> TaskFromProto(const v1::Task& proto, const TaskLimits& limits);

// A PlanRequest in domain terms (the task converted, everything else as the client sent it).
absl::StatusOr<PlanningRequest> PlanningRequestFromProto(const v1::PlanRequest& proto,
                                                         const TaskLimits& limits);

// The plan's tables[].shards only (what EvaluatePlan reads); errors name "plan.tables[i]...".
absl::StatusOr<Plan> PlanShardsFromProto(const v1::Plan& proto);

void PlanToProto(const Plan& plan, v1::Plan* proto);
void AlgorithmInfoToProto(const AlgorithmInfo& info, bool is_default, v1::AlgorithmInfo* proto);
void ModelEntryToProto(const ModelRegistry::Entry& entry, v1::ModelInfo* proto);
void JobSnapshotToProto(const JobSnapshot& job, v1::JobStatus* proto);

v1::ShardingType ShardingTypeToProto(ShardingType type);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PROTO_CONVERSION_H_
