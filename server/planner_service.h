#ifndef SHARDPLAN_SERVER_PLANNER_SERVICE_H_
#define SHARDPLAN_SERVER_PLANNER_SERVICE_H_

#include <atomic>
#include <optional>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "costmodels/model_registry.h"
#include "grpcpp/grpcpp.h"
#include "planner/framework/algorithm_registry.h"
#include "server/concurrency_limiter.h"
#include "server/job_manager.h"
#include "server/metrics.h"
#include "server/plan_ledger.h"
#include "server/planning_engine.h"
#include "server/security/client_limiter.h"
#include "server/single_flight.h"
#include "shardplan/v1/planner.grpc.pb.h"

namespace shardplan {

// Per-client and per-request limits of the PlannerService (ServerConfig's
// max_requests_per_client and max_planning_time_ms).
struct PlannerServiceLimits {
  // Caps each client's planning Plan calls plus queued or running jobs; null: no cap.
  ClientLimiter* clients = nullptr;
  // The caller's identity for `clients` (ClientIdentity); null: the peer address.
  std::function<std::string(const grpc::ServerContext&)> identify;
  // Cap on the planning time of every Plan call and job; 0: none.
  int64_t max_planning_time_ms = 0;
};

// shardplan.v1.PlannerService over the planning engine and the job manager. Handlers convert
// protos to the domain and back and map errors to gRPC codes; all planning logic lives in the
// engine. Every handler runs through one wrapper that records the request metrics and turns a
// stray exception into INTERNAL.
class PlannerServiceImpl final : public v1::PlannerService::Service {
 public:
  // Every pointer must outlive the service. `plan_slots` caps the Plan calls planning at once
  // (max_concurrent_plans); a call that needs to plan and finds none free is refused with
  // RESOURCE_EXHAUSTED. Cache hits take no slot; jobs are bounded by their workers.
  // `ledger` records plans and jobs in the plan store and answers job keys.
  PlannerServiceImpl(const PlanningEngine* engine, JobManager* jobs, const PlanLedger* ledger,
                     const AlgorithmRegistry* algorithms, const ModelRegistry* models,
                     ConcurrencyLimiter* plan_slots, ServerMetrics* metrics,
                     PlannerServiceLimits limits = {});

  // From now on Plan and SubmitPlan answer UNAVAILABLE; job queries, EvaluatePlan and the lists
  // are still served while the server drains.
  void StartDraining() { draining_.store(true); }

  grpc::Status Plan(grpc::ServerContext* context, const v1::PlanRequest* request,
                    v1::PlanResponse* response) override;
  grpc::Status SubmitPlan(grpc::ServerContext* context, const v1::PlanRequest* request,
                          v1::SubmitPlanResponse* response) override;
  grpc::Status GetPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                       v1::JobStatus* response) override;
  grpc::Status WatchPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                         grpc::ServerWriter<v1::JobStatus>* writer) override;
  grpc::Status CancelPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                          v1::JobStatus* response) override;
  grpc::Status Replan(grpc::ServerContext* context, const v1::PlanRequest* request,
                      v1::PlanResponse* response) override;
  grpc::Status EvaluatePlan(grpc::ServerContext* context, const v1::EvaluatePlanRequest* request,
                            v1::EvaluatePlanResponse* response) override;
  grpc::Status ListAlgorithms(grpc::ServerContext* context,
                              const v1::ListAlgorithmsRequest* request,
                              v1::ListAlgorithmsResponse* response) override;
  grpc::Status ListModels(grpc::ServerContext* context, const v1::ListModelsRequest* request,
                          v1::ListModelsResponse* response) override;

 private:
  // Runs `handler` (returning absl::Status) for the call `context`, records shardplan_rpc_* for
  // `method` (HandleRpc).
  template <typename Handler>
  grpc::Status Handle(grpc::ServerContext& context, absl::string_view method, Handler&& handler);

  absl::StatusOr<PreparedRequest> Prepare(const v1::PlanRequest& request) const;
  // Plans for a Plan call within a plan slot and a max_requests_per_client slot of its client;
  // `context` supplies the deadline, the cancellation and the client's identity.
  absl::StatusOr<PlanningResult> PlanNow(const grpc::ServerContext& context,
                                         const PreparedRequest& request);
  // PlanNow, once for all identical requests in flight (flights_): a call that finds its request
  // being planned waits for that plan under its own deadline, holding no plan slot.
  absl::StatusOr<PlanningResult> PlanOnce(const grpc::ServerContext& context,
                                          const PreparedRequest& request);
  absl::Status RefuseWhileDraining() const;
  // A max_requests_per_client slot of the calling client.
  absl::StatusOr<ClientLimiter::Slot> AcquireClientSlot(const grpc::ServerContext& context);

  // What the plan store holds under a request's job key.
  struct KeyedLookup {
    std::optional<PlanRecord> record;  // the key's record, if any
    bool replace = false;  // the record is a failed or cancelled attempt: a new one takes the key
  };
  // FAILED_PRECONDITION when the key names a different request, or when the server keeps no
  // store; UNAVAILABLE when the store cannot be read.
  absl::StatusOr<KeyedLookup> LookUpJobKey(const v1::PlanRequest& request) const;
  // Fills `response` with `record`'s stored plan.
  absl::Status AnswerFromRecord(const PlanRecord& record, v1::PlanResponse* response) const;
  // Plans (cache, store, then PlanNow) and records the plan; `replace_key` moves the job key.
  absl::Status PlanAndRecord(const grpc::ServerContext& context, const v1::PlanRequest& request,
                             bool replace_key, v1::PlanResponse* response);
  // The job's snapshot from the JobManager, else from the plan store; NOT_FOUND from the
  // JobManager when neither knows it.
  absl::StatusOr<JobSnapshot> FindJob(const std::string& job_id) const;
  // WatchPlan of a job only the plan store knows (another replica's, or finished before a
  // restart): polls its record until it ends.
  absl::Status WatchStoredJob(const grpc::ServerContext& context, const std::string& job_id,
                              grpc::ServerWriter<v1::JobStatus>* writer) const;

  const PlanningEngine* const engine_;
  JobManager* const jobs_;
  const PlanLedger* const ledger_;
  const AlgorithmRegistry* const algorithms_;
  const ModelRegistry* const models_;
  ConcurrencyLimiter* const plan_slots_;
  ServerMetrics* const metrics_;
  const PlannerServiceLimits limits_;
  ClientLimiter no_client_limit_{0};  // used when limits_.clients is null
  SingleFlight<PlanningResult> flights_;  // Plan calls planning, by request hash
  std::atomic<bool> draining_{false};
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNER_SERVICE_H_
