#ifndef SHARDPLAN_WIRE_JSON_IO_H_
#define SHARDPLAN_WIRE_JSON_IO_H_

// Tasks and plans as JSON files: the proto3 JSON mapping of shardplan.v1.Task and
// shardplan.v1.Plan (proto/shardplan/v1/planner.proto) with the proto's snake_case names, read
// and written by protobuf (proto/json/json_message.h) and converted to and from the domain
// (wire/task_proto.h, wire/plan_proto.h). So files are interchangeable with the CLI and the
// Python client, and a field added to the proto needs no change here.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "proto/json/json_message.h"

namespace shardplan::wire {

// Errors are INVALID_ARGUMENT with the field path ("tables[2].rows: expected an integer, got
// \"ten\""), or RESOURCE_EXHAUSTED past `limits`. Parsing checks types and shapes only;
// ValidateTask checks values.
absl::StatusOr<Task> ParseTaskJson(absl::string_view json, const TaskLimits& limits = {});

// Every field, defaults included (a task file shows everything that was planned).
std::string TaskToJson(const Task& task, bool pretty = false);

absl::StatusOr<Plan> ParsePlanJson(absl::string_view json);
// Every field, defaults included, as the CLI's --json prints a plan.
std::string PlanToJson(const Plan& plan);

}  // namespace shardplan::wire

#endif  // SHARDPLAN_WIRE_JSON_IO_H_
