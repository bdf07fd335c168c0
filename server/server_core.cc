#include "server/server_core.h"

#include <unistd.h>

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_prefix.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "server/durable_jobs.h"
#include "server/logging.h"
#include "server/policy_vetting.h"
#include "server/store/plan_store.h"
#include "server/store/sqlite_plan_store.h"

namespace shardplan {

ServerCore::ServerCore(const ServerConfig& config)
    : config_(config),
      algorithms_(BuiltinAlgorithms()),
      cache_(config.cache_bytes),
      plan_slots_(config.max_concurrent_plans),
      work_budget_(config.max_concurrent_work),
      measurement_rate_(config.max_measurements_per_client_per_minute,
                        "max_measurements_per_client_per_minute"),
      client_limits_(config.max_requests_per_client),
      stream_limits_(config.EffectiveMaxStreams(), config.max_streams_per_client) {}

absl::StatusOr<std::unique_ptr<ServerCore>> ServerCore::Create(const ServerConfig& config) {
  std::unique_ptr<ServerCore> s(new ServerCore(config));

  if (absl::Status added = RegisterBuiltinModels(s->models_); !added.ok()) return added;
  ModelReloader::Options reload_options;
  reload_options.policies = &s->policies_;
  // A policy is served only when one of this server's algorithms can run it, and plans a
  // sanity task sensibly.
  reload_options.check_policy = ServedPolicyCheck(&s->algorithms_);
  s->reloader_ = std::make_unique<ModelReloader>(config.models_dir, &s->models_, &s->metrics_,
                                                 std::move(reload_options));
  if (s->reloader_->enabled()) {
    absl::StatusOr<ModelReloadReport> report = s->reloader_->ReloadNow();
    if (!report.ok()) return report.status();  // logged; refusals are not errors
    LogLine(absl::StrCat("models_dir \"", config.models_dir, "\": ", report->loaded.size(),
                         " bundles loaded, ", report->policies_loaded.size(), " policies loaded, ",
                         report->refused.size(), " refused"));
  }
  // The registry's default serves requests that name no model when no loaded model covers
  // their task (default_model ""), or all of them (default_model set).
  if (absl::Status chosen = s->models_.SetDefault(config.registry_default_model());
      !chosen.ok()) {
    return WithPrefix(chosen, "default_model: ");
  }
  s->metrics_.SetModelsLoaded(static_cast<int64_t>(s->models_.size()));
  s->metrics_.SetPoliciesLoaded(static_cast<int64_t>(s->policies_.size()));
  s->metrics_.SetModelInfo(s->models_.List(), s->policies_.List());
  s->metrics_.SetCacheSize(0, 0);
  s->metrics_.SetJobLoad(0, 0);
  s->metrics_.SetJobQueueCapacity(config.queue_capacity);
  s->metrics_.SetWork(0, config.max_concurrent_work);

  PlanningEngineOptions engine_options;
  engine_options.default_algorithm = config.default_algorithm;
  engine_options.default_model = config.default_model;
  engine_options.limits = config.task_limits();
  s->engine_ = std::make_unique<PlanningEngine>(&s->algorithms_, &s->models_, &s->policies_,
                                                &s->cache_, &s->metrics_, engine_options);
  if (absl::StatusOr<const Algorithm*> found = s->engine_->FindAlgorithm(config.default_algorithm);
      !found.ok()) {
    return WithPrefix(found.status(), "default_");  // "default_algorithm: unknown ..."
  }

  if (absl::Status opened = s->OpenStore(); !opened.ok()) return opened;

  JobManagerOptions job_options;
  job_options.workers = static_cast<int>(config.workers);
  job_options.queue_capacity = static_cast<int>(config.queue_capacity);
  job_options.max_retained_jobs = static_cast<int>(config.max_retained_jobs);
  job_options.max_retained_job_bytes = config.max_retained_job_bytes;
  job_options.max_retained_job_age = std::chrono::seconds(config.retained_job_age_s);
  s->jobs_ = std::make_unique<JobManager>(job_options, &s->metrics_);
  absl::StatusOr<RecoveryReport> recovered =
      ResumeUnfinishedJobs(s->engine_.get(), s->ledger_.get(), s->jobs_.get(),
                           config.max_planning_time_ms, &s->metrics_);
  if (recovered.status().code() == absl::StatusCode::kDataLoss) {
    // A damaged store is served for what is intact rather than refused (CheckStore logged it).
    LogLine(
        absl::StrCat("store: DAMAGED: the unfinished jobs cannot be listed, so none is "
                     "resumed: ",
                     recovered.status().message()));
  } else if (!recovered.ok()) {
    return WithPrefix(recovered.status(), "store: ");
  } else if (recovered->resumed + recovered->failed > 0) {
    LogLine(absl::StrCat("store: resumed ", recovered->resumed, " unfinished jobs, marked ",
                         recovered->failed, " failed"));
  }
  s->service_ = std::make_unique<PlanningService>(
      s->engine_.get(), s->jobs_.get(), s->ledger_.get(), &s->plan_slots_, &s->client_limits_,
      &s->metrics_,
      PlanningServiceOptions{.max_planning_time_ms = config.max_planning_time_ms,
                             .streams = &s->stream_limits_,
                             .work = &s->work_budget_,
                             .measurement_rate = &s->measurement_rate_});
  return s;
}

absl::Status ServerCore::OpenStore() {
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
    absl::StatusOr<StoredBytes> bytes = store_->Bytes();
    if (bytes.ok()) metrics_.SetStoreBytes(bytes->total, bytes->kept);
    LogLine(absl::StrCat(
        "store: ", store_->backend(), ", ",
        records.ok() ? absl::StrCat(*records, " records") : std::string(records.status().message()),
        bytes.ok() ? absl::StrCat(", ", bytes->total, " bytes") : ""));
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
  ledger_ = std::make_unique<PlanLedger>(
      store_.get(), replica, config_.task_limits(), &metrics_,
      PlanLedgerOptions{.max_plan_bytes = config_.store_max_plan_bytes});
  if (store_ != nullptr) CheckStore();
  return absl::OkStatus();
}

void ServerCore::CheckStore() {
  // Served whatever it finds: intact records are still worth answering, and a damaged one
  // answers DATA_LOSS when asked for. The log line, shardplan_store_checks_total and
  // shardplan_store_healthy 0 tell the operator to restore from a backup.
  const absl::Status checked = store_->QuickCheck();
  const char* result = checked.ok()                                            ? "ok"
                       : checked.code() == absl::StatusCode::kDataLoss         ? "damaged"
                       : checked.code() == absl::StatusCode::kDeadlineExceeded ? "unfinished"
                                                                               : "error";
  metrics_.RecordStoreCheck(result);
  if (checked.code() == absl::StatusCode::kDataLoss) {
    ledger_->MarkStoreDamaged(std::string(checked.message()));
    LogLine(
        absl::StrCat("store: DAMAGED: the start-up integrity check failed; intact records "
                     "are served, damaged ones answer DATA_LOSS; restore the store from a "
                     "backup (docs/plan-store.md): ",
                     checked.message()));
  } else if (!checked.ok()) {
    LogLine(
        absl::StrCat("store: the start-up integrity check did not complete: ", checked.message()));
  }
}

void ServerCore::StartBackground() {
  reloader_->StartPolling(std::chrono::milliseconds(
      static_cast<int64_t>(std::llround(config_.model_reload_interval_s * 1000.0))));
  if (store_ != nullptr && (config_.store_retention_s > 0 || config_.store_max_bytes > 0)) {
    StoreRetention retention;
    retention.keep = std::chrono::milliseconds(std::llround(config_.store_retention_s * 1000.0));
    retention.max_bytes = config_.store_max_bytes;
    retention.interval =
        std::chrono::milliseconds(std::llround(config_.store_prune_interval_s * 1000.0));
    pruner_ = std::make_unique<StorePruner>(store_.get(), retention, &metrics_);
    pruner_->Start();
  }
}

void ServerCore::StopAccepting() {
  service_->StartDraining();
  jobs_->StopAccepting();
}

bool ServerCore::WaitForJobs(std::chrono::steady_clock::time_point deadline) {
  return jobs_->WaitUntilIdle(deadline);
}

void ServerCore::CancelJobs(std::chrono::steady_clock::duration grace) {
  Log(LogLevel::kWarn, absl::StrCat("drain timeout: cancelling ", jobs_->queued(), " queued and ",
                                    jobs_->running(), " running jobs"));
  ledger_->BeginShutdown();  // the cancelled jobs stay unfinished in the store: resumed later
  jobs_->CancelAll();
  jobs_->WaitUntilIdle(std::chrono::steady_clock::now() + grace);
}

void ServerCore::StopBackground() {
  if (reloader_ != nullptr) reloader_->Stop();
  if (pruner_ != nullptr) pruner_->Stop();
}

void ServerCore::Shutdown() {
  StopBackground();
  // Jobs a shutdown cancels stay unfinished in the store, so the next start resumes them.
  if (ledger_ != nullptr) ledger_->BeginShutdown();
  if (jobs_ != nullptr) jobs_->Shutdown();
}

ServerCore::~ServerCore() { Shutdown(); }

}  // namespace shardplan
