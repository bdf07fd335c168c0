#ifndef SHARDPLAN_SERVER_GRPC_PROTO_CONVERSION_H_
#define SHARDPLAN_SERVER_GRPC_PROTO_CONVERSION_H_

#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "planner/framework/algorithm.h"
#include "server/job_manager.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan {

// The answers of the server's own kinds as shardplan.v1 messages. Requests and plans are the
// core's (server/request_proto.h, server/result_proto.h), tasks wire/'s.

void AlgorithmInfoToProto(const AlgorithmInfo& info, bool is_default, v1::AlgorithmInfo* proto);
void ModelEntryToProto(const ModelRegistry::Entry& entry, v1::ModelInfo* proto);
// A policy version as ListModels shows it: kind "policy", its algorithm, data_size the tasks it
// was trained on; never the default (a policy is chosen per algorithm: docs/policies.md).
void PolicyEntryToProto(const PolicyRegistry::Entry& entry, v1::ModelInfo* proto);
void JobSnapshotToProto(const JobSnapshot& job, v1::JobStatus* proto);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_PROTO_CONVERSION_H_
