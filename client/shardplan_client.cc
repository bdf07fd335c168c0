#include "client/shardplan_client.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/backoff.h"
#include "client/grpc_status.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace shardplan::client {
namespace {

using ::shardplan::v1::JobState;
using ::shardplan::v1::JobStatus;
using PlannerStub = ::shardplan::v1::PlannerService::Stub;

absl::Time DeadlineFor(const CallOptions& call, absl::Duration default_timeout) {
  const absl::Duration timeout = call.timeout.value_or(default_timeout);
  if (timeout == absl::InfiniteDuration()) return absl::InfiniteFuture();
  return absl::Now() + timeout;
}

// The deadline, and the bearer token every call carries when the options hold one.
void PrepareContext(grpc::ClientContext& context, const ClientOptions& options,
                    absl::Time deadline) {
  if (deadline != absl::InfiniteFuture()) context.set_deadline(absl::ToChronoTime(deadline));
  if (!options.bearer_token.empty()) {
    context.AddMetadata("authorization", absl::StrCat("Bearer ", options.bearer_token));
  }
}

// Whether to try again after `status` failed attempt `attempt`; sleeps first if so. UNAVAILABLE
// is retried, and RESOURCE_EXHAUSTED when the server marked it transient (`retry_after`: busy
// now, not a task over its limits), until the deadline or max_attempts (when set); the sleep is
// the backoff, or the server's hint if longer, cut short so that the next attempt still has
// initial_backoff (a connection's worth) before the deadline.
bool SleepBeforeRetry(const ClientOptions& options, absl::string_view method, int attempt,
                      const absl::Status& status, std::optional<absl::Duration> retry_after,
                      absl::Time deadline, Backoff& backoff) {
  const bool transient =
      absl::IsUnavailable(status) || (absl::IsResourceExhausted(status) && retry_after);
  if (!transient || (options.max_attempts > 0 && attempt >= options.max_attempts)) return false;
  const absl::Duration last_attempt = std::max(options.initial_backoff, absl::ZeroDuration());
  const absl::Duration sleep =
      std::min(std::max(backoff.Next(), retry_after.value_or(absl::ZeroDuration())),
               deadline - absl::Now() - last_attempt);
  if (sleep <= absl::ZeroDuration()) return false;
  if (options.on_retry) options.on_retry({std::string(method), attempt, status, sleep});
  absl::SleepFor(sleep);
  return true;
}

// Calls stub.*rpc(request) under the call's deadline (CallOptions, else
// ClientOptions::default_timeout), retrying as ClientOptions says.
template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> CallUnary(const ClientOptions& options, absl::string_view method,
                                   const CallOptions& call, Stub& stub,
                                   grpc::Status (Stub::*rpc)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                   const Request& request) {
  const absl::Time deadline = DeadlineFor(call, options.default_timeout);
  Backoff backoff(options);
  for (int attempt = 1;; ++attempt) {
    grpc::ClientContext context;
    PrepareContext(context, options, deadline);
    Response response;
    absl::Status status = ToAbslStatus((stub.*rpc)(&context, request, &response));
    if (status.ok()) return response;
    if (!SleepBeforeRetry(options, method, attempt, status, RetryAfter(context), deadline,
                          backoff)) {
      return status;
    }
  }
}

shardplan::v1::JobRequest JobRequestFor(absl::string_view job_id) {
  shardplan::v1::JobRequest request;
  request.set_job_id(std::string(job_id));
  return request;
}

std::shared_ptr<grpc::Channel> MakeChannel(absl::string_view target, const ClientOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  // gRPC's own reconnect backoff starts at 1 s; align it with ours so that a retry after a
  // refused connection actually dials again instead of failing fast on a channel still backing
  // off.
  const int initial_ms =
      static_cast<int>(std::max<int64_t>(absl::ToInt64Milliseconds(options.initial_backoff), 100));
  const int max_ms = static_cast<int>(
      std::max<int64_t>(absl::ToInt64Milliseconds(options.max_backoff), initial_ms));
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, initial_ms);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, initial_ms);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, max_ms);
  if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials ? options.credentials : grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(std::string(target), credentials, args);
}

}  // namespace

struct PlannerClient::HealthStub {
  explicit HealthStub(const std::shared_ptr<grpc::Channel>& channel)
      : stub(grpc::health::v1::Health::NewStub(channel)) {}
  std::unique_ptr<grpc::health::v1::Health::Stub> stub;
};

absl::string_view HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kServing:
      return "SERVING";
    case HealthStatus::kNotServing:
      return "NOT_SERVING";
    case HealthStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case HealthStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

bool IsTerminal(JobState state) {
  return state == shardplan::v1::SUCCEEDED || state == shardplan::v1::FAILED ||
         state == shardplan::v1::CANCELLED;
}

absl::Status JobStatusToStatus(const JobStatus& status) {
  if (status.state() != shardplan::v1::FAILED && status.state() != shardplan::v1::CANCELLED) {
    return absl::OkStatus();
  }
  absl::StatusCode code = static_cast<absl::StatusCode>(status.error_code());
  if (code == absl::StatusCode::kOk) {
    code = status.state() == shardplan::v1::CANCELLED ? absl::StatusCode::kCancelled
                                                      : absl::StatusCode::kUnknown;
  }
  std::string message = status.error_message();
  if (message.empty()) {
    message = absl::StrCat("job ", status.job_id(), " ", JobState_Name(status.state()));
  }
  return absl::Status(code, message);
}

absl::StatusOr<std::unique_ptr<PlannerClient>> PlannerClient::Connect(absl::string_view target,
                                                                      ClientOptions options) {
  if (target.empty()) return absl::InvalidArgumentError("server target is empty");
  std::shared_ptr<grpc::Channel> channel = MakeChannel(target, options);
  return std::make_unique<PlannerClient>(std::move(channel), std::move(options));
}

PlannerClient::PlannerClient(std::shared_ptr<grpc::Channel> channel, ClientOptions options)
    : options_(std::move(options)),
      channel_(std::move(channel)),
      stub_(shardplan::v1::PlannerService::NewStub(channel_)),
      admin_stub_(shardplan::v1::AdminService::NewStub(channel_)),
      health_(std::make_unique<HealthStub>(channel_)) {}

PlannerClient::~PlannerClient() = default;

absl::StatusOr<shardplan::v1::PlanResponse> PlannerClient::Plan(
    const shardplan::v1::PlanRequest& request, const CallOptions& call) {
  return CallUnary(options_, "Plan", call, *stub_, &PlannerStub::Plan, request);
}

absl::StatusOr<shardplan::v1::PlanResponse> PlannerClient::Replan(
    const shardplan::v1::PlanRequest& request, const CallOptions& call) {
  return CallUnary(options_, "Replan", call, *stub_, &PlannerStub::Replan, request);
}

absl::StatusOr<shardplan::v1::SubmitPlanResponse> PlannerClient::SubmitPlan(
    const shardplan::v1::PlanRequest& request, const CallOptions& call) {
  return CallUnary(options_, "SubmitPlan", call, *stub_, &PlannerStub::SubmitPlan, request);
}

absl::StatusOr<JobStatus> PlannerClient::GetPlan(absl::string_view job_id,
                                                 const CallOptions& call) {
  return CallUnary(options_, "GetPlan", call, *stub_, &PlannerStub::GetPlan, JobRequestFor(job_id));
}

absl::StatusOr<JobStatus> PlannerClient::CancelPlan(absl::string_view job_id,
                                                    const CallOptions& call) {
  return CallUnary(options_, "CancelPlan", call, *stub_, &PlannerStub::CancelPlan,
                   JobRequestFor(job_id));
}

absl::StatusOr<JobStatus> PlannerClient::WatchPlan(absl::string_view job_id,
                                                   const WatchCallback& on_status,
                                                   const CallOptions& call) {
  const shardplan::v1::JobRequest request = JobRequestFor(job_id);
  const absl::Time deadline = DeadlineFor(call, options_.watch_timeout);
  Backoff backoff(options_);
  std::optional<JobStatus> last;
  int attempt = 1;
  while (true) {
    grpc::ClientContext context;
    PrepareContext(context, options_, deadline);
    std::unique_ptr<grpc::ClientReader<JobStatus>> reader = stub_->WatchPlan(&context, request);
    JobStatus status;
    bool progressed = false;
    while (reader->Read(&status)) {
      progressed = true;
      if (on_status) on_status(status);
      last = status;
    }
    absl::Status finished = ToAbslStatus(reader->Finish());
    if (finished.ok()) {
      if (last.has_value() && IsTerminal(last->state())) return *std::move(last);
      // A server that shuts down gracefully ends streams early; treat it like a broken stream.
      finished = absl::UnavailableError(
          absl::StrCat("WatchPlan stream for job ", job_id, " ended before the job did"));
    }
    // Attempts count consecutive failures: a stream that delivered something starts afresh.
    if (progressed) {
      attempt = 1;
      backoff.Reset();
    }
    if (!SleepBeforeRetry(options_, "WatchPlan", attempt, finished, RetryAfter(context), deadline,
                          backoff)) {
      return finished;
    }
    ++attempt;
  }
}

absl::StatusOr<shardplan::v1::EvaluatePlanResponse> PlannerClient::EvaluatePlan(
    const shardplan::v1::EvaluatePlanRequest& request, const CallOptions& call) {
  return CallUnary(options_, "EvaluatePlan", call, *stub_, &PlannerStub::EvaluatePlan, request);
}

absl::StatusOr<shardplan::v1::ReportMeasurementResponse> PlannerClient::ReportMeasurement(
    const shardplan::v1::ReportMeasurementRequest& request, const CallOptions& call) {
  return CallUnary(options_, "ReportMeasurement", call, *stub_, &PlannerStub::ReportMeasurement,
                   request);
}

absl::StatusOr<shardplan::v1::ListAlgorithmsResponse> PlannerClient::ListAlgorithms(
    const CallOptions& call) {
  return CallUnary(options_, "ListAlgorithms", call, *stub_, &PlannerStub::ListAlgorithms,
                   shardplan::v1::ListAlgorithmsRequest());
}

absl::StatusOr<shardplan::v1::ListModelsResponse> PlannerClient::ListModels(
    const CallOptions& call) {
  return CallUnary(options_, "ListModels", call, *stub_, &PlannerStub::ListModels,
                   shardplan::v1::ListModelsRequest());
}

absl::StatusOr<shardplan::v1::ReloadModelsResponse> PlannerClient::ReloadModels(
    const CallOptions& call) {
  return CallUnary(options_, "ReloadModels", call, *admin_stub_,
                   &shardplan::v1::AdminService::Stub::ReloadModels,
                   shardplan::v1::ReloadModelsRequest());
}

absl::StatusOr<shardplan::v1::DeletePlanResponse> PlannerClient::DeletePlan(
    absl::string_view job_id, absl::string_view job_key, const CallOptions& call) {
  shardplan::v1::DeletePlanRequest request;
  request.set_job_id(std::string(job_id));
  request.set_job_key(std::string(job_key));
  return CallUnary(options_, "DeletePlan", call, *admin_stub_,
                   &shardplan::v1::AdminService::Stub::DeletePlan, request);
}

absl::StatusOr<HealthStatus> PlannerClient::Health(absl::string_view service,
                                                   const CallOptions& call) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(std::string(service));
  const absl::StatusOr<grpc::health::v1::HealthCheckResponse> response = CallUnary(
      options_, "Health", call, *health_->stub, &grpc::health::v1::Health::Stub::Check, request);
  if (!response.ok()) return response.status();
  switch (response->status()) {
    case grpc::health::v1::HealthCheckResponse::SERVING:
      return HealthStatus::kServing;
    case grpc::health::v1::HealthCheckResponse::NOT_SERVING:
      return HealthStatus::kNotServing;
    case grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN:
      return HealthStatus::kServiceUnknown;
    default:
      return HealthStatus::kUnknown;
  }
}

}  // namespace shardplan::client
