#include "server/server_config.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/command_line.h"
#include "base/option_help.h"
#include "base/option_values.h"
#include "costmodels/model_registry.h"
#include "proto/json/json_document.h"

namespace shardplan {
namespace {

using Field =
    std::variant<std::string ServerConfig::*, int64_t ServerConfig::*, double ServerConfig::*>;

struct Option {
  const char* name;
  Field field;
  const char* value_name;
  const char* help;
};

// One row per ServerConfig field: the flag name and JSON key, the value's name and the help line.
const std::vector<Option>& Options() {
  static const std::vector<Option> options = {
      {"address", &ServerConfig::address, "HOST:PORT", "gRPC listen address (port 0: a free port)"},
      {"metrics_address", &ServerConfig::metrics_address, "HOST:PORT",
       "Prometheus /metrics HTTP address (\"\": disabled, port 0: a free port)"},
      {"health_address", &ServerConfig::health_address, "HOST:PORT",
       "plaintext gRPC port serving only grpc.health.v1 (\"\": off, port 0: a free port)"},
      {"port_file", &ServerConfig::port_file, "FILE",
       "write {\"grpc_port\": N, \"metrics_port\": M, \"health_port\": H} here after binding "
       "(\"\": none)"},
      {"workers", &ServerConfig::workers, "N", "job worker threads"},
      {"max_concurrent_plans", &ServerConfig::max_concurrent_plans, "N",
       "Plan calls planning at once, then RESOURCE_EXHAUSTED (cache hits exempt)"},
      {"max_concurrent_work", &ServerConfig::max_concurrent_work, "TABLE_DEVICES",
       "tables x devices of the tasks being converted, validated, planned, evaluated or "
       "measured at once, then RESOURCE_EXHAUSTED"},
      {"max_measurements_per_client_per_minute",
       &ServerConfig::max_measurements_per_client_per_minute, "N",
       "ReportMeasurement calls per client identity a minute (0: no limit)"},
      {"max_rpc_threads", &ServerConfig::max_rpc_threads, "N",
       "gRPC handler threads, one per call (>= max_concurrent_plans + 2)"},
      {"queue_capacity", &ServerConfig::queue_capacity, "N",
       "queued jobs before SubmitPlan answers RESOURCE_EXHAUSTED"},
      {"cache_bytes", &ServerConfig::cache_bytes, "BYTES",
       "plan cache budget in bytes (0: no cache)"},
      {"max_message_bytes", &ServerConfig::max_message_bytes, "BYTES",
       "largest gRPC message received or sent"},
      {"max_tables", &ServerConfig::max_tables, "N", "most tables in a task"},
      {"max_devices", &ServerConfig::max_devices, "N", "most devices in a task"},
      {"max_retained_jobs", &ServerConfig::max_retained_jobs, "N",
       "finished jobs kept for GetPlan/WatchPlan (oldest forgotten first)"},
      {"max_retained_job_bytes", &ServerConfig::max_retained_job_bytes, "BYTES",
       "bytes of finished jobs' plans kept in memory (oldest forgotten first)"},
      {"retained_job_age_s", &ServerConfig::retained_job_age_s, "SECONDS",
       "seconds a finished job is kept in memory (0: no limit; the store still answers)"},
      {"default_algorithm", &ServerConfig::default_algorithm, "NAME",
       "algorithm for requests that name none"},
      {"default_model", &ServerConfig::default_model, "NAME",
       "cost model for requests that name none (built-in or a bundle's name; \"\": the newest "
       "loaded model that covers the task, else analytic)"},
      {"models_dir", &ServerConfig::models_dir, "DIR",
       "model bundles <dir>/<name>/<version>/ (missing: none yet; \"\": bundles disabled)"},
      {"model_reload_interval_s", &ServerConfig::model_reload_interval_s, "SECONDS",
       "seconds between scans of models_dir for changes (0: only at start and ReloadModels)"},
      {"store", &ServerConfig::store, "URI",
       "plan store: sqlite:<path>, postgresql://<uri>, or \"\" for none"},
      {"store_retention_s", &ServerConfig::store_retention_s, "SECONDS",
       "seconds the store keeps finished records without a job key (0: forever)"},
      {"store_prune_interval_s", &ServerConfig::store_prune_interval_s, "SECONDS",
       "seconds between store retention passes (the first at start-up)"},
      {"store_max_plan_bytes", &ServerConfig::store_max_plan_bytes, "BYTES",
       "keyless plans whose record is larger are answered but not stored (0: no cap)"},
      {"store_max_bytes", &ServerConfig::store_max_bytes, "BYTES",
       "bytes of plans the store keeps; retention deletes the oldest keyless beyond (0: no "
       "bound)"},
      {"replica_id", &ServerConfig::replica_id, "NAME",
       "this replica's name in the store (\"\": the host name)"},
      {"drain_timeout_s", &ServerConfig::drain_timeout_s, "SECONDS",
       "seconds jobs and calls may take to finish after SIGTERM/SIGINT before cancellation"},
      {"tls_cert_file", &ServerConfig::tls_cert_file, "FILE",
       "PEM certificate chain of the gRPC port (with tls_key_file: TLS; \"\": plaintext)"},
      {"tls_key_file", &ServerConfig::tls_key_file, "FILE", "PEM private key of tls_cert_file"},
      {"tls_client_ca_file", &ServerConfig::tls_client_ca_file, "FILE",
       "PEM CA for mutual TLS: clients must present a certificate it signed (\"\": no)"},
      {"auth_tokens_file", &ServerConfig::auth_tokens_file, "FILE",
       "JSON bearer tokens (name, sha256, role); every call but health needs one (\"\": off)"},
      {"max_requests_per_client", &ServerConfig::max_requests_per_client, "N",
       "planning Plan calls plus queued/running jobs of one client, then RESOURCE_EXHAUSTED "
       "(0: off)"},
      {"max_streams", &ServerConfig::max_streams, "N",
       "WatchPlan streams open at once, then RESOURCE_EXHAUSTED (0: half of max_rpc_threads; "
       "below max_rpc_threads - 1)"},
      {"max_streams_per_client", &ServerConfig::max_streams_per_client, "N",
       "WatchPlan streams one client may hold open, then RESOURCE_EXHAUSTED (0: off)"},
      {"max_planning_time_ms", &ServerConfig::max_planning_time_ms, "MS",
       "cap on any request's planning time in ms (0: no cap)"},
      {"log_level", &ServerConfig::log_level, "LEVEL",
       "lowest level logged: debug, info, warn or error"},
      {"log_format", &ServerConfig::log_format, "FORMAT",
       "log line format: text, json (one object per line) or logfmt"},
      {"log_repeat_limit", &ServerConfig::log_repeat_limit, "N",
       "most lines with the same key (a request's method, code and caller) per "
       "log_repeat_window_s; the rest are counted and reported (0: no limit)"},
      {"log_repeat_window_s", &ServerConfig::log_repeat_window_s, "SECONDS",
       "the window of log_repeat_limit"},
  };
  return options;
}

const Option* FindOption(absl::string_view name) {
  for (const Option& option : Options()) {
    if (name == option.name) return &option;
  }
  return nullptr;
}

// The value given for `option` on the command line, typed; usage errors name the flag.
absl::Status SetFromFlag(const Option& option, const OptionValues& flags, ServerConfig& config) {
  if (auto* field = std::get_if<std::string ServerConfig::*>(&option.field)) {
    config.*(*field) = flags.Get(option.name);
    return absl::OkStatus();
  }
  if (auto* field = std::get_if<int64_t ServerConfig::*>(&option.field)) {
    absl::StatusOr<int64_t> value = flags.GetInt(option.name);
    if (!value.ok()) return value.status();
    config.*(*field) = *value;
    return absl::OkStatus();
  }
  absl::StatusOr<double> value = flags.GetDouble(option.name);
  if (!value.ok()) return value.status();
  config.*std::get<double ServerConfig::*>(option.field) = *value;
  return absl::OkStatus();
}

absl::Status SetFromJson(const Option& option, const nlohmann::json& value, ServerConfig& config) {
  if (auto* field = std::get_if<std::string ServerConfig::*>(&option.field)) {
    if (!value.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(option.name, ": expected a string"));
    }
    config.*(*field) = value.get<std::string>();
    return absl::OkStatus();
  }
  if (auto* field = std::get_if<int64_t ServerConfig::*>(&option.field)) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat(option.name, ": out of range"));
    }
    if (!value.is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat(option.name, ": expected an integer"));
    }
    config.*(*field) = value.get<int64_t>();
    return absl::OkStatus();
  }
  if (!value.is_number()) {
    return absl::InvalidArgumentError(absl::StrCat(option.name, ": expected a number"));
  }
  config.*std::get<double ServerConfig::*>(option.field) = value.get<double>();
  return absl::OkStatus();
}

// The default as the JSON file spells it (strings quoted, so that "" shows), for the help.
std::string DefaultText(const Option& option) {
  static const ServerConfig defaults;
  if (auto* field = std::get_if<std::string ServerConfig::*>(&option.field)) {
    return absl::StrCat("\"", defaults.*(*field), "\"");
  }
  if (auto* field = std::get_if<int64_t ServerConfig::*>(&option.field)) {
    return absl::StrCat(defaults.*(*field));
  }
  return absl::StrCat(defaults.*std::get<double ServerConfig::*>(option.field));
}

absl::Status CheckRange(absl::string_view name, int64_t value, int64_t min, int64_t max) {
  if (value < min || value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": must be in [", min, ", ", max, "], got ", value));
  }
  return absl::OkStatus();
}

absl::Status LoadConfigFile(const std::string& path, ServerConfig& config) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("--config: cannot read \"", path, "\""));
  std::stringstream text;
  text << in.rdbuf();
  // A setting given twice is refused: which of the two the server ran with is not for a JSON
  // parser to choose silently.
  absl::StatusOr<nlohmann::json> json = proto_json::ParseJsonDocument(text.str());
  if (!json.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--config \"", path, "\": ", json.status().message()));
  }
  absl::Status applied = ApplyConfigJson(*json, config);
  if (!applied.ok()) {
    return absl::Status(applied.code(),
                        absl::StrCat("--config \"", path, "\": ", applied.message()));
  }
  return absl::OkStatus();
}

// --config and one flag per setting (its default shown as the file spells it; only the flags
// given are applied).
std::vector<OptionSpec> SettingOptions() {
  std::vector<OptionSpec> specs = {
      OptionSpec::Value("config", "FILE",
                        "a JSON object whose keys are the flag names below; flags override it")
          .Repeatable(),
  };
  for (const Option& option : Options()) {
    OptionSpec spec = OptionSpec::Value(option.name, option.value_name, option.help);
    spec.default_value = DefaultText(option);
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The settings and the help switches (--helpfull as absl flags spell it).
std::vector<OptionSpec> CommandLineOptions() {
  std::vector<OptionSpec> specs = SettingOptions();
  specs.push_back(OptionSpec::Switch("help", "show this help and exit", 'h'));
  specs.push_back(OptionSpec::Switch("helpfull", "the same as --help"));
  return specs;
}

}  // namespace

TaskLimits ServerConfig::task_limits() const {
  TaskLimits limits;
  limits.max_tables = max_tables;
  limits.max_devices = max_devices;
  return limits;
}

std::string ServerConfig::registry_default_model() const {
  return default_model.empty() ? std::string(kFallbackModel) : default_model;
}

LogOptions ServerConfig::log_options() const {
  LogOptions options;
  options.level = ParseLogLevel(log_level).value_or(LogLevel::kInfo);
  options.format = ParseLogFormat(log_format).value_or(LogFormat::kText);
  options.repeat_limit = log_repeat_limit;
  options.repeat_window =
      std::chrono::milliseconds(static_cast<int64_t>(std::llround(log_repeat_window_s * 1000)));
  return options;
}

absl::Status ValidateServerConfig(const ServerConfig& config) {
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  if (config.address.empty()) return absl::InvalidArgumentError("address: must not be empty");
  for (const absl::Status& status : {
           CheckRange("workers", config.workers, 1, 1024),
           CheckRange("max_concurrent_plans", config.max_concurrent_plans, 1, 1024),
           CheckRange("max_concurrent_work", config.max_concurrent_work, 1,
                      std::numeric_limits<int64_t>::max() / 2),
           CheckRange("max_measurements_per_client_per_minute",
                      config.max_measurements_per_client_per_minute, 0, 1000000),
           CheckRange("max_rpc_threads", config.max_rpc_threads, 3, 100000),
           CheckRange("queue_capacity", config.queue_capacity, 1, 1000000),
           CheckRange("cache_bytes", config.cache_bytes, 0, std::numeric_limits<int64_t>::max()),
           CheckRange("max_message_bytes", config.max_message_bytes, 1024, kMaxInt),
           CheckRange("max_tables", config.max_tables, 1, kMaxInt),
           CheckRange("max_devices", config.max_devices, 1, kMaxInt),
           CheckRange("max_retained_jobs", config.max_retained_jobs, 1, 10000000),
           CheckRange("max_retained_job_bytes", config.max_retained_job_bytes, 0, int64_t{1} << 40),
           CheckRange("retained_job_age_s", config.retained_job_age_s, 0, int64_t{365} * 24 * 3600),
           CheckRange("store_max_plan_bytes", config.store_max_plan_bytes, 0,
                      std::numeric_limits<int64_t>::max()),
           CheckRange("store_max_bytes", config.store_max_bytes, 0,
                      std::numeric_limits<int64_t>::max()),
           CheckRange("max_requests_per_client", config.max_requests_per_client, 0, 1000000),
           CheckRange("max_streams", config.max_streams, 0, 100000),
           CheckRange("max_streams_per_client", config.max_streams_per_client, 0, 100000),
           CheckRange("max_planning_time_ms", config.max_planning_time_ms, 0,
                      int64_t{7} * 24 * 3600 * 1000),
           CheckRange("log_repeat_limit", config.log_repeat_limit, 0, 1000000000),
       }) {
    if (!status.ok()) return status;
  }
  // The planning calls, one more call to refuse the next with max_concurrent_plans's own
  // message, and the thread gRPC keeps polling with.
  if (config.max_rpc_threads < config.max_concurrent_plans + 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_rpc_threads: must be at least max_concurrent_plans + 2 (",
                     config.max_concurrent_plans + 2, "), got ", config.max_rpc_threads));
  }
  // Streams hold their threads for as long as they watch: at least one thread besides them
  // and gRPC's polling one serves every other call.
  if (config.EffectiveMaxStreams() > config.max_rpc_threads - 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_streams: must leave other calls a thread, at most max_rpc_threads - 2 (",
                     config.max_rpc_threads - 2, "), got ", config.EffectiveMaxStreams()));
  }
  if (config.default_algorithm.empty()) {
    return absl::InvalidArgumentError("default_algorithm: must not be empty");
  }
  // Below a millisecond would spin the poll thread; a day is an ample ceiling.
  if (!std::isfinite(config.model_reload_interval_s) || config.model_reload_interval_s < 0 ||
      (config.model_reload_interval_s > 0 && config.model_reload_interval_s < 0.001) ||
      config.model_reload_interval_s > 86400) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model_reload_interval_s: must be 0 or in [0.001, 86400], got ",
        config.model_reload_interval_s));
  }
  if (!config.store.empty() && !absl::StartsWith(config.store, "postgresql://") &&
      !absl::StartsWith(config.store, "postgres://") &&
      !(absl::StartsWith(config.store, "sqlite:") && config.store.size() > 7)) {
    return absl::InvalidArgumentError(
        "store: expected \"sqlite:<path>\", \"postgresql://...\" or \"\" (no store)");
  }
  // A century bounds it so that the milliseconds fit an int64 with room to spare.
  if (!std::isfinite(config.store_retention_s) || config.store_retention_s < 0 ||
      config.store_retention_s > 100.0 * 365 * 24 * 3600) {
    return absl::InvalidArgumentError(absl::StrCat(
        "store_retention_s: must be in [0, 3153600000] (100 years), got ",
        config.store_retention_s));
  }
  // As model_reload_interval_s: below a millisecond would spin the retention thread.
  if (!std::isfinite(config.store_prune_interval_s) || config.store_prune_interval_s < 0.001 ||
      config.store_prune_interval_s > 86400) {
    return absl::InvalidArgumentError(absl::StrCat(
        "store_prune_interval_s: must be in [0.001, 86400], got ", config.store_prune_interval_s));
  }
  if (!std::isfinite(config.drain_timeout_s) || config.drain_timeout_s < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("drain_timeout_s: must be >= 0, got ", config.drain_timeout_s));
  }
  if (!ParseLogLevel(config.log_level)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "log_level: must be debug, info, warn or error, got \"", config.log_level, "\""));
  }
  if (!ParseLogFormat(config.log_format)) {
    return absl::InvalidArgumentError(
        absl::StrCat("log_format: must be text, json or logfmt, got \"", config.log_format, "\""));
  }
  if (!std::isfinite(config.log_repeat_window_s) || config.log_repeat_window_s < 0.001 ||
      config.log_repeat_window_s > 86400) {
    return absl::InvalidArgumentError(absl::StrCat(
        "log_repeat_window_s: must be in [0.001, 86400], got ", config.log_repeat_window_s));
  }
  if (config.tls_cert_file.empty() != config.tls_key_file.empty()) {
    return absl::InvalidArgumentError(config.tls_cert_file.empty()
                                          ? "tls_cert_file: must be set with tls_key_file"
                                          : "tls_key_file: must be set with tls_cert_file");
  }
  if (!config.tls_client_ca_file.empty() && config.tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "tls_client_ca_file: mutual TLS needs TLS (tls_cert_file and tls_key_file)");
  }
  return absl::OkStatus();
}

absl::Status ApplyConfigJson(const nlohmann::json& json, ServerConfig& config) {
  if (!json.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  for (const auto& [key, value] : json.items()) {
    const Option* option = FindOption(key);
    if (option == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown setting \"", key, "\""));
    }
    absl::Status status = SetFromJson(*option, value, config);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  const std::vector<std::string> words(args.empty() ? args.begin() : args.begin() + 1, args.end());
  absl::StatusOr<OptionValues> flags =
      ParseOptions(CommandLineOptions(), words, {.allow_positionals = false});
  if (!flags.ok()) return flags.status();
  CommandLine result;
  if (flags->Has("help") || flags->Has("helpfull")) {
    result.help = true;
    return result;
  }
  // The files first, in order; then every flag overrides them.
  for (const std::string& path : flags->GetAll("config")) {
    absl::Status loaded = LoadConfigFile(path, result.config);
    if (!loaded.ok()) return loaded;
  }
  for (const Option& option : Options()) {
    if (!flags->Has(option.name)) continue;
    absl::Status set = SetFromFlag(option, *flags, result.config);
    if (!set.ok()) return set;
  }
  absl::Status valid = ValidateServerConfig(result.config);
  if (!valid.ok()) return valid;
  return result;
}

std::string HelpText(const std::string& program) {
  return absl::StrCat(
      "Usage: ", program, " [--config FILE] [--flag=value ...]\n", "       ", program,
      " -h|--help\n\n",
      "shardplan-server serves shardplan.v1.PlannerService (gRPC), grpc.health.v1 and server\n"
      "reflection, and Prometheus metrics over HTTP. SIGTERM/SIGINT drain it gracefully.\n\n",
      FormatOptionsHelp(SettingOptions()));
}

}  // namespace shardplan
