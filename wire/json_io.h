#ifndef SHARDPLAN_WIRE_JSON_IO_H_
#define SHARDPLAN_WIRE_JSON_IO_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// Tasks and plans as JSON. The schema is the proto3 JSON mapping of shardplan.v1.Task and
// shardplan.v1.Plan with snake_case names (proto/shardplan/v1/planner.proto), so files are
// interchangeable with the CLI and the Python client: int64 fields are read from numbers or
// decimal strings, enums by name. Unknown fields are errors (they are usually typos).
// Errors are INVALID_ARGUMENT with the field path: "tables[2].rows: expected an integer".
// Parsing checks types and shapes only; ValidateTask checks values.

absl::StatusOr<Task> TaskFromJson(const nlohmann::json& json);
absl::StatusOr<Task> ParseTaskJson(std::string_view text);
nlohmann::json TaskToJson(const Task& task);

absl::StatusOr<Plan> PlanFromJson(const nlohmann::json& json);
nlohmann::json PlanToJson(const Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_WIRE_JSON_IO_H_
