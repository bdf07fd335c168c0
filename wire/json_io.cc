#include "wire/json_io.h"

#include "wire/plan_proto.h"
#include "wire/task_proto.h"

namespace shardplan::wire {

absl::StatusOr<Task> ParseTaskJson(absl::string_view json, const TaskLimits& limits) {
  v1::Task proto;
  if (absl::Status status = proto_json::ParseJsonMessage(json, proto); !status.ok()) return status;
  return TaskFromProto(proto, limits, /*path=*/"");
}

std::string TaskToJson(const Task& task, bool pretty) {
  return proto_json::WriteJsonMessage(TaskToProto(task), {.pretty = pretty, .with_defaults = true});
}

absl::StatusOr<Plan> ParsePlanJson(absl::string_view json) {
  v1::Plan proto;
  if (absl::Status status = proto_json::ParseJsonMessage(json, proto); !status.ok()) return status;
  return PlanFromProto(proto, /*path=*/"");
}

std::string PlanToJson(const Plan& plan) {
  return proto_json::WriteJsonMessage(PlanToProto(plan), {.with_defaults = true});
}

}  // namespace shardplan::wire
