#include "server/grpc_server.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "server/durable_jobs.h"
#include "server/logging.h"
#include "server/security/client_identity.h"
#include "server/security/server_credentials.h"
#include "server/status_conversion.h"
#include "server/store/sqlite_plan_store.h"

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

ShardplanServer::ShardplanServer(const ServerConfig& config)
    : config_(config),
      algorithms_(BuiltinAlgorithms()),
      cache_(config.cache_bytes),
      plan_slots_(config.max_concurrent_plans),
      client_limits_(config.max_requests_per_client) {}

absl::StatusOr<std::unique_ptr<ShardplanServer>> ShardplanServer::Start(
    const ServerConfig& config) {
  if (absl::Status valid = ValidateServerConfig(config); !valid.ok()) return valid;
  std::unique_ptr<ShardplanServer> s(new ShardplanServer(config));

  if (absl::Status added = RegisterBuiltinModels(s->models_); !added.ok()) return added;
  s->reloader_ = std::make_unique<ModelReloader>(config.models_dir, &s->models_, &s->metrics_);
  if (s->reloader_->enabled()) {
    absl::StatusOr<ModelReloadReport> report = s->reloader_->ReloadNow();
    if (!report.ok()) return report.status();  // logged; refusals are not errors
    LogLine(absl::StrCat("models_dir \"", config.models_dir, "\": ", report->loaded.size(),
                         " bundles loaded, ", report->refused.size(), " refused"));
  }
  // The registry's default serves requests that name no model when no loaded model covers
  // their task (default_model ""), or all of them (default_model set).
  if (absl::Status chosen = s->models_.SetDefault(config.registry_default_model());
      !chosen.ok()) {
    return WithPrefix(chosen, "default_model: ");
  }
  s->metrics_.SetModelsLoaded(static_cast<int64_t>(s->models_.size()));
  s->metrics_.SetModelInfo(s->models_.List());
  s->metrics_.SetCacheSize(0, 0);
  s->metrics_.SetJobLoad(0, 0);
  s->metrics_.SetJobQueueCapacity(config.queue_capacity);

  PlanningEngineOptions engine_options;
  engine_options.default_algorithm = config.default_algorithm;
  engine_options.default_model = config.default_model;
  engine_options.limits = config.task_limits();
  s->engine_ = std::make_unique<PlanningEngine>(&s->algorithms_, &s->models_, &s->cache_,
                                                &s->metrics_, engine_options);
  if (absl::StatusOr<const Algorithm*> found = s->engine_->FindAlgorithm(config.default_algorithm);
      !found.ok()) {
    return WithPrefix(found.status(), "default_");  // "default_algorithm: unknown ..."
  }

  if (absl::Status opened = s->OpenStore(); !opened.ok()) return opened;

  JobManagerOptions job_options;
  job_options.workers = static_cast<int>(config.workers);
  job_options.queue_capacity = static_cast<int>(config.queue_capacity);
  job_options.max_retained_jobs = static_cast<int>(config.max_retained_jobs);
  s->jobs_ = std::make_unique<JobManager>(job_options, &s->metrics_);
  if (!config.auth_tokens_file.empty()) {
    absl::StatusOr<std::shared_ptr<const TokenStore>> tokens =
        TokenStore::Load(config.auth_tokens_file);
    if (!tokens.ok()) return tokens.status();
    s->authenticator_ = std::make_shared<TokenAuthenticator>(*std::move(tokens), &s->metrics_);
    if (config.tls_cert_file.empty()) {
      LogLine("warning: auth_tokens_file is set without TLS: bearer tokens cross the network in "
              "plaintext; set tls_cert_file and tls_key_file unless a local proxy terminates TLS");
    }
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeServerCredentials(
      {config.tls_cert_file, config.tls_key_file, config.tls_client_ca_file}, s->authenticator_);
  if (!credentials.ok()) return credentials.status();

  PlannerServiceLimits limits;
  limits.clients = &s->client_limits_;
  limits.max_planning_time_ms = config.max_planning_time_ms;
  limits.identify = [authenticator = s->authenticator_](const grpc::ServerContext& context) {
    return ClientIdentity(context, authenticator ? authenticator->tokens().get() : nullptr);
  };
  absl::StatusOr<RecoveryReport> recovered =
      ResumeUnfinishedJobs(s->engine_.get(), s->ledger_.get(), s->jobs_.get(),
                           config.max_planning_time_ms, &s->metrics_);
  if (!recovered.ok()) return WithPrefix(recovered.status(), "store: ");
  if (recovered->resumed + recovered->failed > 0) {
    LogLine(absl::StrCat("store: resumed ", recovered->resumed, " unfinished jobs, marked ",
                         recovered->failed, " failed"));
  }
  s->service_ = std::make_unique<PlannerServiceImpl>(
      s->engine_.get(), s->jobs_.get(), s->ledger_.get(), &s->algorithms_, &s->models_,
      &s->plan_slots_, &s->metrics_, limits);
  s->admin_service_ =
      std::make_unique<AdminServiceImpl>(s->reloader_.get(), s->ledger_.get(), &s->metrics_);

  grpc::EnableDefaultHealthCheckService(true);
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
        MetricsEndpoint::Start(config.metrics_address, s->metrics_.registry());
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
  s->reloader_->StartPolling(std::chrono::milliseconds(
      static_cast<int64_t>(std::llround(config.model_reload_interval_s * 1000.0))));
  if (s->store_ != nullptr && config.store_retention_s > 0) {
    StoreRetention retention;
    retention.keep = std::chrono::milliseconds(std::llround(config.store_retention_s * 1000.0));
    retention.interval =
        std::chrono::milliseconds(std::llround(config.store_prune_interval_s * 1000.0));
    s->pruner_ = std::make_unique<StorePruner>(s->store_.get(), retention, &s->metrics_);
    s->pruner_->Start();
  }
  s->started_ = true;
  return s;
}

absl::Status ShardplanServer::OpenStore() {
  const std::string& spec = config_.store;
  if (absl::StartsWith(spec, "sqlite:")) {
    absl::StatusOr<std::unique_ptr<InstanceLock>> lock =
        InstanceLock::Acquire(absl::StrCat(spec.substr(7), ".lock"), "store");
    if (!lock.ok()) return lock.status();
    store_lock_ = *std::move(lock);
  }
  if (!spec.empty()) {
    absl::StatusOr<std::unique_ptr<PlanStore>> store = OpenPlanStore(spec);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    absl::StatusOr<int64_t> records = store_->Count();
    LogLine(absl::StrCat("store: ", store_->backend(), ", ",
                         records.ok() ? absl::StrCat(*records, " records")
                                      : std::string(records.status().message())));
    // Served as a read-only replica rather than refused: its plans are still worth answering.
    if (const auto* sqlite = dynamic_cast<const SqlitePlanStore*>(store_.get());
        sqlite != nullptr && sqlite->read_only()) {
      LogLine(
          "store: the SQLite file is read-only: stored plans and jobs are served; keyed "
          "Plan calls that need a new plan and SubmitPlan answer UNAVAILABLE");
    }
  } else {
    LogLine("store: none (store is \"\"): plans live only in the cache, job keys are refused");
  }
  std::string replica = config_.replica_id;
  if (replica.empty()) {
    char host[256] = {};
    replica = ::gethostname(host, sizeof(host) - 1) == 0 ? host : "localhost";
  }
  ledger_ = std::make_unique<PlanLedger>(store_.get(), replica, config_.task_limits(), &metrics_);
  return absl::OkStatus();
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
  if (reloader_ != nullptr) reloader_->Stop();  // no scan outlives the server
  if (pruner_ != nullptr) pruner_->Stop();
  if (!started_) {  // start-up failed half way: nothing was served yet
    if (health_server_ != nullptr) health_server_->Shutdown(std::chrono::system_clock::now());
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
    if (ledger_ != nullptr) ledger_->BeginShutdown();
    if (jobs_ != nullptr) jobs_->Shutdown();
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Load balancers see NOT_SERVING and route elsewhere; job queries keep working meanwhile.
  server_->GetHealthCheckService()->Shutdown();
  if (health_server_ != nullptr) health_server_->GetHealthCheckService()->Shutdown();
  service_->StartDraining();
  jobs_->StopAccepting();
  LogLine(absl::StrCat(
      "draining: ", jobs_->queued(), " queued and ", jobs_->running(), " running jobs, up to ",
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count(), " ms"));
  if (!jobs_->WaitUntilIdle(deadline)) {
    LogLine(absl::StrCat("drain timeout: cancelling ", jobs_->queued(), " queued and ",
                         jobs_->running(), " running jobs"));
    ledger_->BeginShutdown();  // the cancelled jobs stay unfinished in the store: resumed later
    jobs_->CancelAll();
    jobs_->WaitUntilIdle(std::chrono::steady_clock::now() + kCancelGrace);
  }
  // Waits for in-flight calls until the deadline, then cancels the rest: their StopSignals fire
  // and the handlers return. The short grace lets WatchPlan streams deliver the final state of
  // jobs that ended (or were cancelled) just now.
  const auto rpc_deadline = std::max(deadline, std::chrono::steady_clock::now() + kStreamGrace);
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(
                        rpc_deadline - std::chrono::steady_clock::now()));
  jobs_->Shutdown();
  // Last: probes keep seeing NOT_SERVING (rather than a refused connection) all drain long.
  if (health_server_ != nullptr) health_server_->Shutdown(std::chrono::system_clock::now());
  LogLine("drained");
}

}  // namespace shardplan
