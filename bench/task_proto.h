#ifndef SHARDPLAN_BENCH_TASK_PROTO_H_
#define SHARDPLAN_BENCH_TASK_PROTO_H_

// The benchmarks that drive a real server (loadgen, serving_overhead) send the tasks they
// generate with the planner's types as API messages.

#include "absl/status/statusor.h"
#include "planner/domain/task.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::bench {

// `task` as a shardplan.v1.Task: the planner's task JSON is the proto3 JSON mapping of the API
// message (wire/json_io.h), so it goes through protobuf's own JSON parser.
absl::StatusOr<v1::Task> TaskProto(const Task& task);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_TASK_PROTO_H_
