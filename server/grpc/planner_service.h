#ifndef SHARDPLAN_SERVER_GRPC_PLANNER_SERVICE_H_
#define SHARDPLAN_SERVER_GRPC_PLANNER_SERVICE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "grpcpp/grpcpp.h"
#include "planner/framework/algorithm_registry.h"
#include "server/metrics.h"
#include "server/planning_service.h"
#include "shardplan/v1/planner.grpc.pb.h"

namespace shardplan {

// shardplan.v1.PlannerService over the transport-free PlanningService: each handler converts
// the request into domain terms, calls the service and converts its answer back; every
// handler runs through one wrapper (HandleRpc) that records the request metrics, maps
// absl::Status to gRPC and turns a stray exception into INTERNAL.
class PlannerServiceImpl final : public v1::PlannerService::Service {
 public:
  // Names the caller of a call (for max_requests_per_client and job ownership).
  using Identify = std::function<std::string(const grpc::ServerContext&)>;
  // Whether the caller has role admin (sees every client's jobs).
  using IsAdmin = std::function<bool(const grpc::ServerContext&)>;

  // Every pointer must outlive the service. `identify` null: the caller is its peer address;
  // `is_admin` null: no caller is an admin.
  PlannerServiceImpl(PlanningService* service, const AlgorithmRegistry* algorithms,
                     const ModelRegistry* models, const PolicyRegistry* policies,
                     ServerMetrics* metrics, Identify identify = nullptr,
                     IsAdmin is_admin = nullptr);

  grpc::Status Plan(grpc::ServerContext* context, const v1::PlanRequest* request,
                    v1::PlanResponse* response) override;
  grpc::Status Replan(grpc::ServerContext* context, const v1::PlanRequest* request,
                      v1::PlanResponse* response) override;
  grpc::Status SubmitPlan(grpc::ServerContext* context, const v1::PlanRequest* request,
                          v1::SubmitPlanResponse* response) override;
  grpc::Status GetPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                       v1::JobStatus* response) override;
  grpc::Status WatchPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                         grpc::ServerWriter<v1::JobStatus>* writer) override;
  grpc::Status CancelPlan(grpc::ServerContext* context, const v1::JobRequest* request,
                          v1::JobStatus* response) override;
  grpc::Status EvaluatePlan(grpc::ServerContext* context, const v1::EvaluatePlanRequest* request,
                            v1::EvaluatePlanResponse* response) override;
  grpc::Status ReportMeasurement(grpc::ServerContext* context,
                                 const v1::ReportMeasurementRequest* request,
                                 v1::ReportMeasurementResponse* response) override;
  grpc::Status ListAlgorithms(grpc::ServerContext* context,
                              const v1::ListAlgorithmsRequest* request,
                              v1::ListAlgorithmsResponse* response) override;
  grpc::Status ListModels(grpc::ServerContext* context, const v1::ListModelsRequest* request,
                          v1::ListModelsResponse* response) override;

 private:
  template <typename Handler>
  grpc::Status Handle(grpc::ServerContext& context, absl::string_view method, Handler&& handler);
  // The call as the service sees it: deadline, cancellation, caller and its role.
  CallContext CallOf(const grpc::ServerContext& context) const;
  // The request in domain terms, converted once ("task.<field>" errors).
  absl::StatusOr<PlanningRequest> RequestOf(const v1::PlanRequest& proto) const;

  PlanningService* const service_;
  const AlgorithmRegistry* const algorithms_;
  const ModelRegistry* const models_;
  const PolicyRegistry* const policies_;  // may be null
  ServerMetrics* const metrics_;
  const Identify identify_;
  const IsAdmin is_admin_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_PLANNER_SERVICE_H_
