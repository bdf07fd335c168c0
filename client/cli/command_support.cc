#include "client/cli/command_support.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "client/cli/connection_security.h"
#include "client/cli/output.h"
#include "client/cli/plan_format.h"
#include "client/cli/torchrec_format.h"

namespace shardplan::cli {
namespace {

constexpr char kDefaultServer[] = "127.0.0.1:50051";

}  // namespace

std::vector<OptionSpec> GlobalFlags() {
  std::vector<OptionSpec> flags = {
      OptionSpec::Value("server", "HOST:PORT",
                        "planner address (default: $SHARDPLAN_SERVER, else 127.0.0.1:50051)"),
      OptionSpec::Value("timeout", "SECONDS",
                        "deadline of each call, retries included (default: 30; watch: none)"),
      OptionSpec::Switch("json", "print proto JSON (original field names) instead of tables"),
      OptionSpec::Value("max-attempts", "N",
                        "tries per call while the server is unavailable (default: 4; 1: no retry; "
                        "0: until --timeout)"),
  };
  for (OptionSpec& flag : SecurityFlags()) flags.push_back(std::move(flag));
  flags.push_back(OptionSpec::Switch("help", "show help and exit", 'h'));
  return flags;
}

absl::Status ReadGlobalOptions(const OptionValues& flags, GlobalOptions& global) {
  if (flags.Has("server")) {
    global.server = flags.Get("server");
  } else if (global.server.empty()) {
    const char* env = std::getenv("SHARDPLAN_SERVER");
    global.server = env != nullptr && *env != '\0' ? env : kDefaultServer;
  }
  if (global.server.empty()) return UsageError("--server is empty");
  if (flags.Has("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(flags.Get("timeout"), &seconds) || !(seconds > 0)) {
      return UsageError(absl::StrCat("--timeout must be a positive number of seconds, got '",
                                     flags.Get("timeout"), "'"));
    }
    global.timeout = absl::Seconds(seconds);
  }
  if (flags.Has("json")) global.json = true;
  if (flags.Has("max-attempts")) {
    int attempts = 0;
    if (!absl::SimpleAtoi(flags.Get("max-attempts"), &attempts) || attempts < 0) {
      return UsageError(absl::StrCat("--max-attempts must be an integer >= 0, got '",
                                     flags.Get("max-attempts"), "'"));
    }
    global.max_attempts = attempts;
  }
  ReadSecurityFlags(flags, global.security);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<client::PlannerClient>> ConnectClient(const GlobalOptions& global) {
  client::ClientOptions options;
  if (global.timeout.has_value()) {
    options.default_timeout = *global.timeout;
    options.watch_timeout = *global.timeout;
  }
  options.max_attempts = global.max_attempts;
  if (absl::Status security = ApplySecurity(global.security, options); !security.ok()) {
    return security;
  }
  options.on_retry = [](const client::RetryEvent& event) {
    std::cerr << "shardplan: " << event.method << ": "
              << absl::StatusCodeToString(event.status.code()) << ": " << event.status.message()
              << "; retrying in " << absl::StrFormat("%.1f", absl::ToDoubleSeconds(event.backoff))
              << " s (attempt " << event.attempt + 1 << ")\n";
  };
  return client::PlannerClient::Connect(global.server, std::move(options));
}

std::vector<OptionSpec> PlanRequestFlags() {
  return {
      OptionSpec::Value("algorithm", "NAME",
                        "planning algorithm (default: the server's; see 'shardplan algorithms')"),
      OptionSpec::Value("param", "KEY=VALUE", "algorithm parameter").Repeatable(),
      OptionSpec::Value("seed", "N", "random seed (default: 0)"),
      OptionSpec::Value("model", "NAME[@VERSION]",
                        "cost model, latest version unless given (default: the server's)"),
      OptionSpec::Value("hardware", "KIND",
                        "the devices' hardware (h100-sxm, a100-sxm4, rtx2080ti, ...): the server "
                        "costs with a model of it; sets the task's topology.hardware"),
      OptionSpec::Switch("no-cache", "plan again even if the server has this plan cached"),
      OptionSpec::Value("job-key", "KEY",
                        "name the plan: the same KEY and task return the stored plan later, across "
                        "new models and restarts"),
  };
}

absl::StatusOr<shardplan::v1::PlanRequest> BuildPlanRequest(const Invocation& invocation,
                                                            shardplan::v1::Task task) {
  const OptionValues& flags = invocation.flags;
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = std::move(task);
  request.set_algorithm(flags.Get("algorithm"));
  for (const std::string& param : flags.GetAll("param")) {
    const size_t eq = param.find('=');
    if (eq == std::string::npos || eq == 0) {
      return UsageError(absl::StrCat("--param wants KEY=VALUE, got '", param, "'"));
    }
    (*request.mutable_parameters())[param.substr(0, eq)] = param.substr(eq + 1);
  }
  if (flags.Has("seed")) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(flags.Get("seed"), &seed)) {
      return UsageError(
          absl::StrCat("--seed must be a non-negative integer, got '", flags.Get("seed"), "'"));
    }
    request.set_seed(seed);
  }
  if (flags.Has("model")) {
    const std::string model = flags.Get("model");
    if (model.empty() || model.front() == '@' || model.back() == '@') {
      return UsageError(absl::StrCat("--model wants NAME or NAME@VERSION, got '", model, "'"));
    }
    request.set_model(model);
  }
  if (flags.Has("hardware")) {
    const std::string hardware = flags.Get("hardware");
    if (hardware.empty()) return UsageError("--hardware wants a device kind, got ''");
    request.mutable_task()->mutable_topology()->set_hardware(hardware);
  }
  request.set_bypass_cache(flags.Has("no-cache"));
  request.set_job_key(flags.Get("job-key"));
  return request;
}

OptionSpec OutputFlag() { return OptionSpec::Value("output", "FILE", "write to FILE", 'o'); }

std::vector<OptionSpec> PlanOutputFlags() {
  return {
      OptionSpec::Value("format", "FORMAT",
                        "text (default), json, or torchrec (TorchRec ShardingPlan JSON)"),
      OutputFlag(),
      OptionSpec::Value("torchrec-module", "PATH",
                        "module path of the tables in the torchrec output (default: "
                        "embedding_bag_collection)"),
      OptionSpec::Value(
          "local-world-size", "N",
          "devices per host for torchrec placements rank:R/cuda:R%N (default: the plan's)"),
  };
}

absl::StatusOr<OutputFormat> ResolveOutputFormat(const Invocation& invocation) {
  const std::string format =
      invocation.flags.Get("format", invocation.global.json ? "json" : "text");
  if (invocation.global.json && format != "json") {
    return UsageError(absl::StrCat("--json conflicts with --format ", format));
  }
  if (format == "text") return OutputFormat::kText;
  if (format == "json") return OutputFormat::kJson;
  if (format == "torchrec") return OutputFormat::kTorchRec;
  return UsageError(absl::StrCat("--format must be text, json or torchrec, got '", format, "'"));
}

absl::Status JobOutcome(const shardplan::v1::JobStatus& status) {
  absl::Status error = client::JobStatusToStatus(status);
  if (error.ok() || status.state() == shardplan::v1::CANCELLED) return error;
  return JobFailedError(absl::Status(
      error.code(), absl::StrCat("job ", status.job_id(), " failed: ", error.message())));
}

absl::Status EmitPlan(const Invocation& invocation, const shardplan::v1::Plan& plan,
                      std::optional<bool> cache_hit,
                      const google::protobuf::Message& json_message,
                      const shardplan::v1::Task* task) {
  absl::StatusOr<OutputFormat> format = ResolveOutputFormat(invocation);
  if (!format.ok()) return format.status();
  const std::string path = invocation.flags.Get("output");
  switch (*format) {
    case OutputFormat::kText:
      return WriteOutput(FormatPlanText(plan, cache_hit), path);
    case OutputFormat::kJson:
      return WriteOutput(ToJson(json_message), path);
    case OutputFormat::kTorchRec: {
      TorchRecOptions options;
      options.module_path = invocation.flags.Get("torchrec-module", options.module_path);
      if (invocation.flags.Has("local-world-size")) {
        if (!absl::SimpleAtoi(invocation.flags.Get("local-world-size"),
                              &options.local_world_size) ||
            options.local_world_size < 1) {
          return UsageError(absl::StrCat("--local-world-size must be an integer >= 1, got '",
                                         invocation.flags.Get("local-world-size"), "'"));
        }
      }
      if (options.module_path.empty()) return UsageError("--torchrec-module is empty");
      if (task != nullptr) {
        for (const shardplan::v1::Table& table : task->tables()) {
          if (table.pooling() == shardplan::v1::SEQUENCE) options.sequence_tables.insert(table.name());
        }
      }
      absl::StatusOr<std::string> json = FormatTorchRecPlan(plan, options);
      if (!json.ok()) return json.status();
      return WriteOutput(*json, path);
    }
  }
  return absl::InternalError("unreachable output format");
}

}  // namespace shardplan::cli
