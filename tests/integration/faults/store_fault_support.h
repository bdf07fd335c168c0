#ifndef SHARDPLAN_TESTS_INTEGRATION_FAULTS_STORE_FAULT_SUPPORT_H_
#define SHARDPLAN_TESTS_INTEGRATION_FAULTS_STORE_FAULT_SUPPORT_H_

// What the plan-store fault tests share: keyed requests, plan comparison, calls on any stub, and
// SQLite's integrity check through the sqlite3 CLI.

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "shardplan/v1/planner.grpc.pb.h"

namespace shardplan::integration {

// QuickRequest(seed) named `key` ("" for none).
v1::PlanRequest KeyedRequest(const std::string& key, uint64_t seed = 0);

// The placement of every table: what a training job shards by.
std::string Shards(const v1::Plan& plan);

// Plan / SubmitPlan / GetPlan on `stub` with kRpcTimeout.
grpc::Status CallPlan(v1::PlannerService::Stub& stub, const v1::PlanRequest& request,
                      v1::PlanResponse* response);
grpc::Status CallSubmit(v1::PlannerService::Stub& stub, const v1::PlanRequest& request,
                        v1::SubmitPlanResponse* response);
grpc::Status CallGet(v1::PlannerService::Stub& stub, const std::string& job_id,
                     v1::JobStatus* response);
// Polls GetPlan on `stub` until job `id` is in `state` (or kRpcTimeout); its last status, and a
// test failure when the state was not reached.
v1::JobStatus AwaitJobState(v1::PlannerService::Stub& stub, const std::string& id,
                            v1::JobState state);

// `PRAGMA integrity_check` of the SQLite file behind `store` ("sqlite:<path>") via the sqlite3
// CLI: "ok" for a sound file, otherwise what it found (or why it could not run).
std::string SqliteIntegrity(const std::string& store);

// Runs `sql` on the SQLite file behind `store` with the sqlite3 CLI; its output.
std::string SqliteQuery(const std::string& store, const std::string& sql);

}  // namespace shardplan::integration

#endif  // SHARDPLAN_TESTS_INTEGRATION_FAULTS_STORE_FAULT_SUPPORT_H_
