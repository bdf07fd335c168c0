#ifndef SHARDPLAN_WIRE_TASK_PROTO_H_
#define SHARDPLAN_WIRE_TASK_PROTO_H_

// shardplan.v1.Task <-> the domain's Task.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::wire {

// Shapes, enums and the topology only; ValidateTask checks the values, but for the physical
// figures of the topology, which must be within what hardware can be (device memory 1 KiB to
// 1 PiB, bandwidths 1 MiB/s to 100,000 GiB/s, 0 for the default). batch_size 0 becomes
// the default. Errors are INVALID_ARGUMENT naming the field under `path` ("task" gives
// "task.tables[2].element_type: ...", "" gives "tables[2].element_type: ..."), and
// RESOURCE_EXHAUSTED when counts exceed `limits`, checked before anything is allocated for
// them.
absl::StatusOr<Task> TaskFromProto(const v1::Task& proto, const TaskLimits& limits = {},
                                   absl::string_view path = "task");

// Every field of `task`; a uniform topology is written as device_memory_gib, a heterogeneous
// one as per_device_memory_gib.
v1::Task TaskToProto(const Task& task);

v1::ShardingType ShardingTypeToProto(ShardingType type);
// UNSPECIFIED and unknown numbers are errors naming `path`.
absl::StatusOr<ShardingType> ShardingTypeFromProto(int value, absl::string_view path);

}  // namespace shardplan::wire

#endif  // SHARDPLAN_WIRE_TASK_PROTO_H_
