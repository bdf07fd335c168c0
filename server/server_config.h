#ifndef SHARDPLAN_SERVER_SERVER_CONFIG_H_
#define SHARDPLAN_SERVER_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "planner/domain/validation.h"
#include "server/logging.h"

namespace shardplan {

// Every setting of shardplan-server with its default. Each field is also a command-line flag
// (--name=value or --name value, base/command_line.h) and a key of the JSON config file
// (--config), with the same name; flags override the file, the file overrides these defaults.
struct ServerConfig {
  // gRPC listen address. Port 0 picks a free port (see port_file).
  std::string address = "127.0.0.1:50051";
  // Prometheus metrics HTTP address ("/metrics"). "" disables the endpoint; port 0 picks one.
  std::string metrics_address = "127.0.0.1:9464";
  // A second, plaintext gRPC port serving only grpc.health.v1.Health with the main server's
  // status (NOT_SERVING once draining starts): Kubernetes' native gRPC probes cannot speak TLS.
  // "" disables it; port 0 picks a free port.
  std::string health_address;
  // After binding, the server writes {"grpc_port": N, "metrics_port": M, "health_port": H}
  // here atomically (0 for a disabled endpoint). "": no file.
  std::string port_file;
  // Job worker threads (SubmitPlan). Synchronous Plan calls run on gRPC's own threads.
  int64_t workers = 2;
  // Plan calls planning at once; one more answers RESOURCE_EXHAUSTED at once (cache hits are
  // always served: they do no planning; jobs are bounded by `workers` instead). Each plan keeps
  // one core busy, so a fixed 8 rather than a multiple of std::thread::hardware_concurrency(),
  // which counts the host's CPUs, not a container's CPU quota: set it to the cores this server
  // may use, less `workers`.
  int64_t max_concurrent_plans = 8;
  // The heavy work of the calls in progress, in table-devices (a task's tables times its
  // devices): converting, validating, planning, evaluating and measuring tasks. A Plan, Replan,
  // SubmitPlan, EvaluatePlan or ReportMeasurement call whose task would exceed it answers
  // RESOURCE_EXHAUSTED before its task is even converted; one larger than the whole budget runs
  // only alone. 2,000,000 is two 100,000-table tasks on 10 devices, or 2,500 tasks of 100
  // tables on 8.
  int64_t max_concurrent_work = 2000000;
  // ReportMeasurement calls one client identity may make a minute (a token bucket holding a
  // minute's worth); 0: no limit. A training job reports once per run or per epoch.
  int64_t max_measurements_per_client_per_minute = 60;
  // gRPC's synchronous handler threads (grpc::ResourceQuota::SetMaxThreads). Every call but the
  // health checks (which gRPC serves on its own threads) holds one while it runs, a WatchPlan
  // stream for as long as it watches; beyond the cap gRPC itself answers RESOURCE_EXHAUSTED
  // ("Server Threadpool Exhausted"). Keep it well above max_concurrent_plans plus the WatchPlan
  // streams you expect (at most one per queued or running job, usually).
  int64_t max_rpc_threads = 256;
  // max_streams with 0 resolved: half of max_rpc_threads.
  int64_t EffectiveMaxStreams() const {
    return max_streams > 0 ? max_streams : max_rpc_threads / 2;
  }
  // Jobs waiting for a worker; SubmitPlan answers RESOURCE_EXHAUSTED beyond this.
  int64_t queue_capacity = 64;
  // Plan cache budget in bytes (approximate in-memory size of the cached plans); 0 disables.
  int64_t cache_bytes = int64_t{64} << 20;
  // Largest gRPC message received or sent.
  int64_t max_message_bytes = int64_t{16} << 20;
  // Task limits (RESOURCE_EXHAUSTED beyond them).
  int64_t max_tables = TaskLimits{}.max_tables;
  int64_t max_devices = TaskLimits{}.max_devices;
  // Finished jobs kept in memory for GetPlan/WatchPlan; the oldest finished job is forgotten
  // first. GetPlan and WatchPlan still answer forgotten jobs from the plan store, if any.
  int64_t max_retained_jobs = 1000;
  // The same, bounded by the bytes of their plans (a 100,000-table plan is about 13 MB) and by
  // age (0: no age limit).
  int64_t max_retained_job_bytes = int64_t{256} << 20;
  int64_t retained_job_age_s = 86400;
  // Algorithm and cost model used when a request names none. The default algorithm is the
  // best the service has, NeuroShard. An empty default_model chooses per task: the newest
  // loaded model (by creation time) that covers the task's device count, else the analytic
  // estimator (docs/server.md, "Defaults"). A model named here may be a bundle's name from
  // models_dir (its latest version), which must then load at start-up; every request that
  // names no model then gets it.
  std::string default_algorithm = "neuroshard";
  std::string default_model;
  // Neural model bundles, laid out <models_dir>/<name>/<version>/ (docs/model-bundles.md),
  // relative to the working directory. A missing directory is an empty one (the built-in
  // analytic model still serves, and bundles placed there later are found by the next scan);
  // "" disables bundles and ReloadModels.
  std::string models_dir = "models";
  // Seconds between scans of models_dir for new, changed and removed bundles; 0 disables the
  // poll (start-up and ReloadModels still scan).
  double model_reload_interval_s = 10.0;
  // The plan store (docs/plan-store.md): "sqlite:<path>" (one file, relative to the working
  // directory; one server per file), "postgresql://..." (libpq URI, shared by replicas), or ""
  // for none (plans live only in the cache; job keys are refused). Stored plans survive
  // restarts: job keys, finished jobs, and jobs resumed after a crash.
  std::string store = "sqlite:shardplan-plans.db";
  // Retention: finished records without a job key (keyless plans, SubmitPlan jobs) are deleted
  // from the store this many seconds after they finished; the default is 30 days. Keyed plans
  // stay until DeletePlan and unfinished jobs always stay. 0 keeps everything.
  double store_retention_s = 30.0 * 24 * 3600;
  // Seconds between retention passes; the first runs at start-up.
  double store_prune_interval_s = 3600.0;
  // A keyless Plan call's record (request and plan JSON) larger than this is not stored: the plan
  // is answered, counted in shardplan_store_oversized_plans_total, logged the first time. Keyed
  // plans and SubmitPlan jobs are stored whatever their size. 0: no cap.
  int64_t store_max_plan_bytes = int64_t{8} << 20;
  // The bytes of request, plan and error text the store may hold: each retention pass deletes
  // the oldest finished keyless records beyond it. Keyed plans and unfinished jobs are never
  // deleted for size (if they alone exceed it, that is logged and the store stays above it).
  // 0: no bound.
  int64_t store_max_bytes = int64_t{1} << 30;
  // This replica's name in the store: a restart resumes the unfinished jobs recorded under it.
  // "": the host name (a Kubernetes pod's name; give StatefulSet pods, or one machine's
  // servers, distinct stable names).
  std::string replica_id;
  // On SIGTERM/SIGINT: how long queued and running jobs and in-flight calls may take to finish
  // before they are cancelled.
  double drain_timeout_s = 30.0;

  // Security (docs/security.md). Empty strings keep the gRPC port plaintext and open.
  // PEM certificate chain and private key of the gRPC port: both set, TLS; both empty, plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Mutual TLS: clients must present a certificate this PEM CA signed. Requires TLS.
  std::string tls_client_ca_file;
  // Bearer tokens, as {"tokens": [{"name", "sha256" (hex SHA-256 of the token), "role"
  // ("planner" or "admin")}]}. When set, every call but grpc.health.v1.Health needs
  // "authorization: Bearer <token>"; AdminService needs role admin. Re-read on SIGHUP.
  std::string auth_tokens_file;
  // Planning Plan calls plus queued or running jobs one client (token name, certificate name or
  // peer address) may have at once; one more answers RESOURCE_EXHAUSTED. Calls answered from the
  // cache or the store, and calls waiting for an identical plan in flight, plan nothing and are
  // not counted. 0: no limit.
  int64_t max_requests_per_client = 16;
  // WatchPlan streams open at once: in all (0: half of max_rpc_threads, so that streams never
  // take the threads every other call needs) and per client (0: no per-client bound).
  int64_t max_streams = 0;
  int64_t max_streams_per_client = 16;
  // Planning time of any request is capped at this, whatever its task or deadline asks (anytime
  // planners return their best plan so far, others DEADLINE_EXCEEDED). 0: no cap.
  int64_t max_planning_time_ms = 60000;

  // The log on stderr (docs/server.md, "Logging"): lines below log_level ("debug", "info",
  // "warn", "error") are dropped; log_format is "text" (<UTC time> shardplan-server: message
  // key=value ...), "json" (one object per line) or "logfmt". At most log_repeat_limit lines
  // with the same key (a request's: method, code and caller; another line's: its message) are
  // written per log_repeat_window_s; a later line says how many were suppressed. 0: no limit.
  std::string log_level = "info";
  std::string log_format = "text";
  int64_t log_repeat_limit = 100;
  double log_repeat_window_s = 10.0;

  TaskLimits task_limits() const;
  // The model registry's default (ModelRegistry::SetDefault): default_model, or when that is
  // empty (the per-task choice) the analytic estimator, which serves what no bundle covers.
  std::string registry_default_model() const;
  // The logging settings as ConfigureLogging takes them (call after ValidateServerConfig).
  LogOptions log_options() const;
};

// INVALID_ARGUMENT naming the setting when a value is out of range.
absl::Status ValidateServerConfig(const ServerConfig& config);

// Applies the keys of a JSON object to `config`. Unknown keys and wrong types are errors naming
// the key.
absl::Status ApplyConfigJson(const nlohmann::json& json, ServerConfig& config);

// What the command line asked for.
struct CommandLine {
  ServerConfig config;
  bool help = false;  // --help: print HelpText() and exit 0
};

// Parses argv (the program name first): the --config files are read first, in order, then
// every other flag overrides them. Command-line mistakes are usage errors (base/exit_codes.h)
// naming the flag; a bad file or setting keeps its own code. The result is validated.
absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args);

// Usage text listing every flag with its default (base/option_help.h).
std::string HelpText(const std::string& program);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SERVER_CONFIG_H_
