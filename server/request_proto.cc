#include "server/request_proto.h"

#include <map>
#include <string>
#include <utility>

#include "wire/task_proto.h"

namespace shardplan {

absl::StatusOr<PlanningRequest> PlanningRequestFromProto(const v1::PlanRequest& proto,
                                                         const TaskLimits& limits) {
  absl::StatusOr<Task> task = wire::TaskFromProto(proto.task(), limits);
  if (!task.ok()) return task.status();
  PlanningRequest request;
  request.task = *std::move(task);
  request.algorithm = proto.algorithm();
  request.params =
      std::map<std::string, std::string>(proto.parameters().begin(), proto.parameters().end());
  request.seed = proto.seed();
  request.model = proto.model();
  request.bypass_cache = proto.bypass_cache();
  request.job_key = proto.job_key();
  return request;
}

v1::PlanRequest PlanningRequestToProto(const PlanningRequest& request) {
  v1::PlanRequest proto;
  *proto.mutable_task() = wire::TaskToProto(request.task);
  proto.set_algorithm(request.algorithm);
  proto.mutable_parameters()->insert(request.params.begin(), request.params.end());
  proto.set_seed(request.seed);
  proto.set_model(request.model);
  proto.set_bypass_cache(request.bypass_cache);
  proto.set_job_key(request.job_key);
  return proto;
}

}  // namespace shardplan
