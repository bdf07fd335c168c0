#ifndef SHARDPLAN_CLIENT_SHARDPLAN_CLIENT_H_
#define SHARDPLAN_CLIENT_SHARDPLAN_CLIENT_H_

// C++ client of the shardplan planner service (proto/shardplan/v1/planner.proto) and of its
// operator calls (admin.proto).
//
//   auto client = shardplan::client::PlannerClient::Connect("planner.internal:50051");
//   if (!client.ok()) return client.status();
//   shardplan::v1::PlanRequest request;
//   *request.mutable_task() = task;
//   absl::StatusOr<shardplan::v1::PlanResponse> plan = (*client)->Plan(request);
//
// Every call returns absl::Status / absl::StatusOr. A failed RPC becomes an absl::Status with the
// same code (gRPC and absl codes are numerically identical) and the server's message unchanged,
// e.g. FAILED_PRECONDITION naming the table that fits on no device. Calls are made with the
// deadline of ClientOptions / CallOptions and retried on UNAVAILABLE as ClientOptions says.
//
// A PlannerClient is thread-safe: calls from many threads share one channel.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/client_options.h"
#include "grpcpp/channel.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "shardplan/v1/planner.grpc.pb.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::client {

// The answer of the standard grpc.health.v1.Health/Check call.
enum class HealthStatus { kUnknown, kServing, kNotServing, kServiceUnknown };

// "SERVING", "NOT_SERVING", ... as the health protocol spells them.
absl::string_view HealthStatusName(HealthStatus status);

// OK for a job that is queued, running or succeeded. For a FAILED or CANCELLED job, the job's
// own error (JobStatus.error_code / error_message; CANCELLED when a cancelled job carries none),
// so that a caller treats a failed asynchronous job like a failed synchronous Plan call.
absl::Status JobStatusToStatus(const shardplan::v1::JobStatus& status);

// True for SUCCEEDED, FAILED and CANCELLED.
bool IsTerminal(shardplan::v1::JobState state);

class PlannerClient {
 public:
  // Called with every status a WatchPlan stream delivers, in order.
  using WatchCallback = std::function<void(const shardplan::v1::JobStatus&)>;

  // A client for `target` ("host:port", "dns:///name:port", "unix:/path"). Connecting is lazy:
  // this fails only for an empty target; an unreachable server shows up as UNAVAILABLE on the
  // first call.
  static absl::StatusOr<std::unique_ptr<PlannerClient>> Connect(absl::string_view target,
                                                                ClientOptions options = {});

  // A client over an existing channel (tests, custom channel arguments).
  PlannerClient(std::shared_ptr<grpc::Channel> channel, ClientOptions options);

  PlannerClient(const PlannerClient&) = delete;
  PlannerClient& operator=(const PlannerClient&) = delete;
  ~PlannerClient();

  // Plans the task and waits for the plan. DEADLINE_EXCEEDED when the deadline passes first (the
  // server stops searching); FAILED_PRECONDITION when the task is infeasible; INVALID_ARGUMENT
  // naming the bad field; NOT_FOUND for an unknown algorithm or model.
  absl::StatusOr<shardplan::v1::PlanResponse> Plan(const shardplan::v1::PlanRequest& request,
                                                   const CallOptions& call = {});

  // With request.job_key set, the first plan under the key is stored and every later Plan or
  // SubmitPlan with the same key and request returns it (response.from_store), from the same
  // model version, across newer models and server restarts: what a job resuming from a
  // checkpoint needs. The same key with another request is FAILED_PRECONDITION.

  // Plans a keyed request again and gives its key the new plan (e.g. to move a job to a newer
  // model on purpose). INVALID_ARGUMENT without a job_key.
  absl::StatusOr<shardplan::v1::PlanResponse> Replan(const shardplan::v1::PlanRequest& request,
                                                     const CallOptions& call = {});

  // Queues the task and returns the job id at once. The request is checked before it is queued,
  // so an invalid task fails here rather than in the job.
  absl::StatusOr<shardplan::v1::SubmitPlanResponse> SubmitPlan(
      const shardplan::v1::PlanRequest& request, const CallOptions& call = {});

  // The job's current status (its result once SUCCEEDED). NOT_FOUND for an unknown job id.
  absl::StatusOr<shardplan::v1::JobStatus> GetPlan(absl::string_view job_id,
                                                   const CallOptions& call = {});

  // Follows the job until it ends, calling `on_status` (may be empty) with every status the
  // server streams, and returns the last one: SUCCEEDED with the result, FAILED or CANCELLED (see
  // JobStatusToStatus). A stream that breaks with UNAVAILABLE is reopened under the retry policy
  // (the server replays the current status, so nothing is lost; a status may repeat). The
  // deadline defaults to ClientOptions::watch_timeout.
  absl::StatusOr<shardplan::v1::JobStatus> WatchPlan(absl::string_view job_id,
                                                     const WatchCallback& on_status,
                                                     const CallOptions& call = {});

  // Asks the server to stop the job and returns its status afterwards (CANCELLED, or the state
  // it had already reached).
  absl::StatusOr<shardplan::v1::JobStatus> CancelPlan(absl::string_view job_id,
                                                      const CallOptions& call = {});

  // Recomputes every figure of the caller's plan (only its shards are read) under a cost model.
  absl::StatusOr<shardplan::v1::EvaluatePlanResponse> EvaluatePlan(
      const shardplan::v1::EvaluatePlanRequest& request, const CallOptions& call = {});
  // A training job's measured iteration time per device for a plan; the answer holds the
  // model's prediction, the relative error and the version's recent mean error.
  absl::StatusOr<shardplan::v1::ReportMeasurementResponse> ReportMeasurement(
      const shardplan::v1::ReportMeasurementRequest& request, const CallOptions& call = {});

  absl::StatusOr<shardplan::v1::ListAlgorithmsResponse> ListAlgorithms(
      const CallOptions& call = {});
  absl::StatusOr<shardplan::v1::ListModelsResponse> ListModels(const CallOptions& call = {});

  // shardplan.v1.AdminService/ReloadModels: the server rescans its models_dir now. Refused
  // bundles are listed in the response, not an error; FAILED_PRECONDITION when the server has
  // no models_dir or cannot list it. Idempotent, so retried like the other calls.
  absl::StatusOr<shardplan::v1::ReloadModelsResponse> ReloadModels(const CallOptions& call = {});

  // shardplan.v1.AdminService/DeletePlan: removes the stored plan named by exactly one of
  // `job_id` and `job_key` (the other ""). NOT_FOUND when none; FAILED_PRECONDITION for a job
  // still queued or running.
  absl::StatusOr<shardplan::v1::DeletePlanResponse> DeletePlan(absl::string_view job_id,
                                                               absl::string_view job_key,
                                                               const CallOptions& call = {});

  // grpc.health.v1.Health/Check for `service` ("" is the server as a whole).
  absl::StatusOr<HealthStatus> Health(absl::string_view service = "", const CallOptions& call = {});

  const ClientOptions& options() const { return options_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  struct HealthStub;  // the generated grpc.health.v1 stub, kept out of this header

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<shardplan::v1::PlannerService::Stub> stub_;
  std::unique_ptr<shardplan::v1::AdminService::Stub> admin_stub_;
  std::unique_ptr<HealthStub> health_;
};

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_SHARDPLAN_CLIENT_H_
