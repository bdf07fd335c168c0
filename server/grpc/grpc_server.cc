#include "server/grpc/grpc_server.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "server/grpc/call_outcome_interceptor.h"
#include "server/grpc/client_identity.h"
#include "server/grpc/server_credentials.h"
#include "server/grpc/status_conversion.h"
#include "server/logging.h"

namespace shardplan {
namespace {

constexpr char kServiceName[] = "shardplan.v1.PlannerService";
// After the drain timeout, cancelled jobs and calls still need a moment to notice.
constexpr auto kCancelGrace = std::chrono::seconds(5);
constexpr auto kStreamGrace = std::chrono::seconds(1);

// Drops every ServerBuilder plugin (server reflection, registered process-wide), so that the
// health-only port exposes nothing but grpc.health.v1.
class NoPluginsOption : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* args) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->clear();
  }
};

// Answers every method the health-only port has no service for with UNIMPLEMENTED. gRPC also
// refuses to build a server without any service of its own (the default health service is added
// only at start), so this one is needed for the port to exist at all.
class UnimplementedService : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    class Reactor : public grpc::ServerGenericBidiReactor {
     public:
      explicit Reactor(const std::string& method) {
        Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                            absl::StrCat(method,
                                         ": the health port (health_address) serves only "
                                         "grpc.health.v1.Health")));
      }
      void OnDone() override { delete this; }
    };
    return new Reactor(context->method());
  }
};

// Serving status for the server as a whole and for PlannerService.
void SetServing(grpc::Server& server) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(kServiceName, true);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShardplanServer>> ShardplanServer::Start(
    const ServerConfig& config) {
  if (absl::Status valid = ValidateServerConfig(config); !valid.ok()) return valid;
  std::unique_ptr<ShardplanServer> s(new ShardplanServer(config));
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(config);
  if (!core.ok()) return core.status();
  s->core_ = *std::move(core);
  ServerMetrics& metrics = s->core_->metrics();

  if (!config.auth_tokens_file.empty()) {
    absl::StatusOr<std::shared_ptr<const TokenStore>> tokens =
        TokenStore::Load(config.auth_tokens_file);
    if (!tokens.ok()) return tokens.status();
    s->authenticator_ = std::make_shared<TokenAuthenticator>(*std::move(tokens), &metrics);
    if (config.tls_cert_file.empty()) {
      Log(LogLevel::kWarn,
          "auth_tokens_file is set without TLS: bearer tokens cross the network in plaintext; set "
          "tls_cert_file and tls_key_file unless a local proxy terminates TLS");
    }
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeServerCredentials(
      {config.tls_cert_file, config.tls_key_file, config.tls_client_ca_file}, s->authenticator_);
  if (!credentials.ok()) return credentials.status();

  const IdentifyCaller identify = [authenticator =
                                       s->authenticator_](const grpc::ServerContext& context) {
    return ClientIdentity(context, authenticator ? authenticator->tokens().get() : nullptr);
  };
  const PlannerServiceImpl::IsAdmin is_admin =
      [authenticator = s->authenticator_](const grpc::ServerContext& context) {
        return CallerIsAdmin(context, authenticator ? authenticator->tokens().get() : nullptr);
      };
  s->service_ = std::make_unique<PlannerServiceImpl>(&s->core_->service(), &s->core_->algorithms(),
                                                     &s->core_->models(), &s->core_->policies(),
                                                     &metrics, identify, is_admin);
  s->admin_service_ = std::make_unique<AdminServiceImpl>(&s->core_->reloader(), &s->core_->ledger(),
                                                         &metrics, identify);

  grpc::EnableDefaultHealthCheckService(true);
  // gRPC's built-in health service has no descriptor in protobuf's generated pool, where server
  // reflection looks, so reflection clients (grpcurl) could list grpc.health.v1.Health but not
  // describe or call it. The vendored health.proto's generated code (shardplan_health_proto)
  // registers that descriptor, but the linker drops a static library's objects that nothing
  // references: this reference keeps it in the binary (observability_test checks it).
  grpc::health::v1::HealthCheckRequest::descriptor();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // Without this, gRPC sets SO_REUSEPORT and a second server on a fixed port would silently
  // share it instead of failing.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(config.address, *credentials, &s->grpc_port_);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(config.max_message_bytes));
  // Bounds the synchronous handler threads (gRPC creates them on demand, without limit by
  // default); beyond the cap gRPC answers RESOURCE_EXHAUSTED itself. Health checks run on gRPC's
  // callback threads and keep answering. See ServerConfig::max_rpc_threads.
  grpc::ResourceQuota quota("shardplan-server");
  quota.SetMaxThreads(static_cast<int>(config.max_rpc_threads));
  builder.SetResourceQuota(quota);
  builder.experimental().SetInterceptorCreators(CallOutcomeInterceptors(&metrics));
  builder.RegisterService(s->service_.get());
  builder.RegisterService(s->admin_service_.get());
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->grpc_port_ == 0) {
    s->server_.reset();
    return absl::UnavailableError(
        absl::StrCat("address: cannot listen on \"", config.address, "\" (in use, or malformed)"));
  }
  // After gRPC: a failed start then never waits for the HTTP server to stop (civetweb takes
  // up to two seconds).
  if (!config.metrics_address.empty()) {
    absl::StatusOr<std::unique_ptr<MetricsEndpoint>> endpoint =
        MetricsEndpoint::Start(config.metrics_address, metrics.collectables());
    if (!endpoint.ok()) return endpoint.status();
    s->metrics_endpoint_ = *std::move(endpoint);
  }
  if (!config.health_address.empty()) {
    s->health_fallback_ = std::make_unique<UnimplementedService>();
    // The default health service (enabled above) and UNIMPLEMENTED for everything else.
    grpc::ServerBuilder health_builder;
    health_builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    health_builder.SetOption(std::make_unique<NoPluginsOption>());
    health_builder.RegisterCallbackGenericService(s->health_fallback_.get());
    health_builder.AddListeningPort(config.health_address, grpc::InsecureServerCredentials(),
                                    &s->health_port_);
    s->health_server_ = health_builder.BuildAndStart();
    if (s->health_server_ == nullptr || s->health_port_ == 0) {
      s->health_server_.reset();
      return absl::UnavailableError(absl::StrCat("health_address: cannot listen on \"",
                                                 config.health_address,
                                                 "\" (in use, or malformed)"));
    }
    SetServing(*s->health_server_);
  }
  SetServing(*s->server_);
  // Saturated (90% of the handler threads busy): the planner service reads NOT_SERVING so that
  // load balancers send new calls elsewhere; the overall status ("") stays SERVING, the process
  // is alive. The drain's health Shutdown() freezes NOT_SERVING whatever this says later.
  // The health port (health_address) mirrors it, as it mirrors the drain.
  grpc::HealthCheckServiceInterface* health = s->server_->GetHealthCheckService();
  grpc::HealthCheckServiceInterface* probe_health =
      s->health_server_ != nullptr ? s->health_server_->GetHealthCheckService() : nullptr;
  metrics.WatchSaturation(config.max_rpc_threads - 1, [health, probe_health](bool saturated) {
    health->SetServingStatus(kServiceName, !saturated);
    if (probe_health != nullptr) probe_health->SetServingStatus(kServiceName, !saturated);
    Log(saturated ? LogLevel::kWarn : LogLevel::kInfo,
        saturated ? "saturated: 90% of the gRPC handler threads are busy; health of "
                    "shardplan.v1.PlannerService is NOT_SERVING until they fall below 75%"
                  : "no longer saturated: health of shardplan.v1.PlannerService is SERVING");
  });
  s->core_->StartBackground();
  s->started_ = true;
  return s;
}

absl::Status ShardplanServer::ReloadTokens() {
  if (authenticator_ == nullptr) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<const TokenStore>> tokens =
      TokenStore::Load(config_.auth_tokens_file);
  if (!tokens.ok()) return tokens.status();
  const size_t count = (*tokens)->entries().size();
  authenticator_->ReplaceTokens(*std::move(tokens));
  LogLine(absl::StrCat("auth_tokens_file \"", config_.auth_tokens_file, "\": ", count,
                       " tokens in force"));
  return absl::OkStatus();
}

ShardplanServer::~ShardplanServer() { Drain(std::chrono::seconds(0)); }

void ShardplanServer::Drain(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> lock(drain_mu_);
  if (drained_) return;
  drained_ = true;
  if (core_ != nullptr) core_->StopBackground();
  if (!started_) {  // start-up failed half way: nothing was served yet
    if (health_server_ != nullptr) health_server_->Shutdown(std::chrono::system_clock::now());
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
    if (core_ != nullptr) core_->Shutdown();
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Load balancers see NOT_SERVING and route elsewhere; job queries keep working meanwhile.
  server_->GetHealthCheckService()->Shutdown();
  if (health_server_ != nullptr) health_server_->GetHealthCheckService()->Shutdown();
  core_->StopAccepting();
  LogLine(absl::StrCat(
      "draining: ", core_->jobs().queued(), " queued and ", core_->jobs().running(),
      " running jobs, up to ",
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count(), " ms"));
  if (!core_->WaitForJobs(deadline)) core_->CancelJobs(kCancelGrace);
  // Waits for in-flight calls until the deadline, then cancels the rest: their StopSignals fire
  // and the handlers return. The short grace lets WatchPlan streams deliver the final state of
  // jobs that ended (or were cancelled) just now.
  const auto rpc_deadline = std::max(deadline, std::chrono::steady_clock::now() + kStreamGrace);
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(
                        rpc_deadline - std::chrono::steady_clock::now()));
  core_->Shutdown();
  // Last: probes keep seeing NOT_SERVING (rather than a refused connection) all drain long.
  if (health_server_ != nullptr) health_server_->Shutdown(std::chrono::system_clock::now());
  LogLine("drained");
}

}  // namespace shardplan
