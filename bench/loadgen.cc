// loadgen: drives a shardplan-server with many concurrent clients (closed loop:
// each client sends its next Plan call when the previous one returns) for a
// bounded time per scenario, through the C++ client library, and reports
// throughput, latency percentiles and errors by gRPC code, cache hits and
// misses apart. docs/load-testing.md explains the scenarios and the numbers.
//
//   build/bench/loadgen [--scenarios cached,uncached,mixed] [--clients 64]
//       [--uncached_clients 4] [--cached_fraction 0.9] [--duration_s 20]
//       [--warmup_s 3]
//       [--algorithm neuroshard] [--model sim-rtx2080ti] [--devices 4]
//       [--min_tables 0]
//       [--max_tables 0] [--cached_tasks 8] [--seed 0] [--pool
//       data/table_pool/dlrm_856.json]
//       [--server HOST:PORT | --server_binary PATH --models_dir models
//       --server_args "..."]
//       [--timeout_s 60] [--expected_codes RESOURCE_EXHAUSTED] [--out
//       bench/results/loadgen]
//
// Without --server it starts its own shardplan-server on free loopback ports
// (the integration tests' ServerProcess) and stops it at the end, so a run is
// one command. It exits non-zero when a request failed with a code outside
// --expected_codes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "client/shardplan_client.h"
#include "grpcpp/create_channel.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "tests/integration/support/server_process.h"
#include "wire/task_proto.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;
using Clock = std::chrono::steady_clock;

// Seeds of uncached requests start here, far from the cached set's seed, so
// that every uncached request has a cache key of its own.
constexpr uint64_t kFirstFreshSeed = uint64_t{1} << 32;
// Distinct tasks the uncached requests cycle through (with fresh seeds).
constexpr int kFreshTasks = 32;

struct Scenario {
  std::string name;
  int clients = 0;
  double cached_fraction = 0;
};

struct Config {
  std::vector<Scenario> scenarios;
  double duration_s = 0;
  double warmup_s = 0;
  std::string algorithm;
  std::string model;
  TaskGenOptions tasks;
  int cached_tasks = 0;
  uint64_t seed = 0;
  std::string pool;
  std::string server;  // "" : start one
  std::string server_binary;
  std::string models_dir;
  std::string server_args;
  double timeout_s = 0;
  std::vector<std::string> expected_codes;
  std::string out;
};

// One completed request.
struct Sample {
  double ms = 0;
  bool cache_hit = false;
  absl::StatusCode code = absl::StatusCode::kOk;
};

std::string CodeName(absl::StatusCode code) { return absl::StatusCodeToString(code); }

// "cached", "uncached", "mixed" with the clients and cached fraction the flags
// give them, or NAME:CLIENTS:FRACTION for any other mix.
absl::StatusOr<std::vector<Scenario>> ParseScenarios(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t clients, args.GetInt("clients"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t uncached_clients, args.GetInt("uncached_clients"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double fraction, args.GetDouble("cached_fraction"));
  std::vector<Scenario> scenarios;
  for (absl::string_view spec : absl::StrSplit(args.Get("scenarios"), ',', absl::SkipEmpty())) {
    Scenario scenario;
    const std::vector<std::string> parts = absl::StrSplit(spec, ':');
    if (spec == "cached") {
      scenario = {"cached", static_cast<int>(clients), 1.0};
    } else if (spec == "uncached") {
      scenario = {"uncached", static_cast<int>(uncached_clients), 0.0};
    } else if (spec == "mixed") {
      scenario = {"mixed", static_cast<int>(clients), fraction};
    } else if (parts.size() != 3 || parts[0].empty() ||
               !absl::SimpleAtoi(parts[1], &scenario.clients) ||
               !absl::SimpleAtod(parts[2], &scenario.cached_fraction)) {
      return UsageError(
          absl::StrCat("--scenarios: '", spec,
                       "' is neither cached, uncached, mixed nor NAME:CLIENTS:CACHED_FRACTION"));
    } else {
      scenario.name = parts[0];
    }
    if (scenario.clients < 1 || scenario.clients > 10000) {
      return UsageError(absl::StrCat("--scenarios: ", scenario.name,
                                     ": clients must be in [1, 10000], got ", scenario.clients));
    }
    if (!(scenario.cached_fraction >= 0 && scenario.cached_fraction <= 1)) {
      return UsageError(absl::StrCat("--scenarios: ", scenario.name,
                                     ": the cached fraction must be in [0, 1], got ",
                                     scenario.cached_fraction));
    }
    scenarios.push_back(scenario);
  }
  if (scenarios.empty()) return UsageError("--scenarios is empty");
  return scenarios;
}

absl::StatusOr<Config> ParseConfig(const OptionValues& args) {
  Config config;
  SHARDPLAN_ASSIGN_OR_RETURN(config.scenarios, ParseScenarios(args));
  SHARDPLAN_ASSIGN_OR_RETURN(config.duration_s, args.GetDouble("duration_s"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.warmup_s, args.GetDouble("warmup_s"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.timeout_s, args.GetDouble("timeout_s"));
  if (!(config.duration_s > 0)) return UsageError("--duration_s must be positive");
  if (!(config.warmup_s >= 0)) return UsageError("--warmup_s must not be negative");
  if (!(config.timeout_s > 0)) return UsageError("--timeout_s must be positive");
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t devices, args.GetInt("devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t min_tables, args.GetInt("min_tables"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_tables, args.GetInt("max_tables"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t cached_tasks, args.GetInt("cached_tasks"));
  if (devices < 1 || devices > 4096) return UsageError("--devices must be in [1, 4096]");
  if (min_tables < 0 || max_tables < 0 || (max_tables > 0 && min_tables > max_tables)) {
    return UsageError("--min_tables and --max_tables: 0 (the default range) or min <= max");
  }
  if (cached_tasks < 1) return UsageError("--cached_tasks must be positive");
  config.tasks.num_devices = static_cast<int32_t>(devices);
  config.tasks.min_tables = static_cast<int32_t>(min_tables);
  config.tasks.max_tables = static_cast<int32_t>(max_tables);
  config.cached_tasks = static_cast<int>(cached_tasks);
  SHARDPLAN_ASSIGN_OR_RETURN(config.seed, args.GetUint("seed"));
  config.algorithm = args.Get("algorithm");
  config.model = args.Get("model");
  config.pool = args.Get("pool");
  config.server = args.Get("server");
  config.server_binary = args.Get("server_binary");
  config.models_dir = args.Get("models_dir");
  config.server_args = args.Get("server_args");
  config.expected_codes = absl::StrSplit(args.Get("expected_codes"), ',', absl::SkipEmpty());
  config.out = args.Get("out");
  return config;
}

// The fixed requests of the cached set and the tasks of the uncached ones.
struct Workload {
  std::vector<v1::PlanRequest> cached;
  std::vector<v1::PlanRequest> fresh;  // seeds set per request
  std::atomic<uint64_t> next_seed{kFirstFreshSeed};
};

absl::StatusOr<v1::PlanRequest> RequestFor(const Task& task, const Config& config) {
  v1::PlanRequest request;
  *request.mutable_task() = wire::TaskToProto(task);
  request.set_algorithm(config.algorithm);
  request.set_model(config.model);
  return request;
}

absl::Status BuildWorkload(const Config& config, Workload& workload) {
  SHARDPLAN_ASSIGN_OR_RETURN(const TablePool pool, LoadTablePool(config.pool));
  for (int i = 0; i < config.cached_tasks + kFreshTasks; ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(const Task task, GenerateTask(pool, config.tasks, config.seed, i));
    SHARDPLAN_ASSIGN_OR_RETURN(v1::PlanRequest request, RequestFor(task, config));
    (i < config.cached_tasks ? workload.cached : workload.fresh).push_back(std::move(request));
  }
  return absl::OkStatus();
}

client::ClientOptions ClientOptionsFor(const Config& config) {
  client::ClientOptions options;
  options.default_timeout = absl::Seconds(config.timeout_s);
  options.max_attempts = 1;  // a retry would hide the error this run is there to count
  return options;
}

// A client with a connection of its own: gRPC shares one connection among
// channels of equal arguments unless each channel keeps a local subchannel
// pool.
std::unique_ptr<client::PlannerClient> OwnConnectionClient(const std::string& target,
                                                           const Config& config) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  const client::ClientOptions options = ClientOptionsFor(config);
  arguments.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  return std::make_unique<client::PlannerClient>(
      grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), arguments), options);
}

// Plans every request of the cached set once, so that the scenarios find them
// cached.
absl::Status PlanCachedSet(client::PlannerClient& client, const Workload& workload) {
  for (size_t i = 0; i < workload.cached.size(); ++i) {
    absl::StatusOr<v1::PlanResponse> response = client.Plan(workload.cached[i]);
    if (!response.ok()) {
      return absl::Status(response.status().code(),
                          absl::StrCat("planning cached task ", i,
                                       " before the run: ", response.status().message()));
    }
  }
  return absl::OkStatus();
}

// The phases of one scenario, as its clients see them.
enum Phase : int { kWarmup = 0, kMeasure = 1, kStop = 2 };

struct ScenarioRun {
  std::vector<Sample> samples;
  double measured_s = 0;
};

// Runs one scenario: warm-up, then `duration_s` measured. A sample counts when
// its request started and ended inside the measured window.
ScenarioRun RunScenario(const std::string& target, const Config& config, const Scenario& scenario,
                        Workload& workload, Progress& progress, int index, int count) {
  std::atomic<int> phase{kWarmup};
  std::atomic<int64_t> done{0}, failed{0};
  std::mutex mu;
  std::vector<Sample> samples;
  std::vector<std::thread> clients;
  for (int c = 0; c < scenario.clients; ++c) {
    clients.emplace_back([&, c] {
      std::unique_ptr<client::PlannerClient> client = OwnConnectionClient(target, config);
      std::mt19937_64 rng(config.seed * 1000003 + static_cast<uint64_t>(c));
      std::bernoulli_distribution cached(scenario.cached_fraction);
      std::vector<Sample> mine;
      for (uint64_t i = 0;; ++i) {
        const int started_in = phase.load();
        if (started_in == kStop) break;
        v1::PlanRequest fresh;
        const v1::PlanRequest* request;
        if (cached(rng)) {
          request = &workload.cached[rng() % workload.cached.size()];
        } else {
          fresh = workload.fresh[rng() % workload.fresh.size()];
          fresh.set_seed(workload.next_seed++);
          request = &fresh;
        }
        const auto start = Clock::now();
        absl::StatusOr<v1::PlanResponse> response = client->Plan(*request);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (started_in != kMeasure || phase.load() != kMeasure) continue;
        mine.push_back({ms, response.ok() && response->cache_hit(), response.status().code()});
        ++done;
        if (!response.ok()) ++failed;
      }
      std::lock_guard<std::mutex> lock(mu);
      samples.insert(samples.end(), mine.begin(), mine.end());
    });
  }
  const auto Wait = [&](double seconds, const char* what) {
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    for (auto now = start; now < end; now = Clock::now()) {
      progress.Working(scenario.name, index, count,
                       absl::StrFormat("%s %.0f/%.0fs, %d clients, %d requests, %d errors", what,
                                       std::chrono::duration<double>(now - start).count(), seconds,
                                       scenario.clients, done.load(), failed.load()));
      std::this_thread::sleep_for(
          std::min(std::chrono::duration<double>(end - now), std::chrono::duration<double>(1.0)));
    }
  };
  Wait(config.warmup_s, "warm-up");
  const auto measure_start = Clock::now();
  phase = kMeasure;
  Wait(config.duration_s, "measuring");
  phase = kStop;
  const double measured_s = std::chrono::duration<double>(Clock::now() - measure_start).count();
  for (std::thread& client : clients) client.join();
  progress.Step(scenario.name, index, count);
  return {std::move(samples), measured_s};
}

// count, throughput and latency percentiles of the samples `keep` selects.
json LatencyJson(const std::vector<Sample>& samples, double seconds,
                 const std::function<bool(const Sample&)>& keep) {
  std::vector<double> ms;
  for (const Sample& sample : samples) {
    if (keep(sample)) ms.push_back(sample.ms);
  }
  json out = {{"requests", ms.size()},
              {"throughput_rps", static_cast<double>(ms.size()) / seconds}};
  if (ms.empty()) {
    for (const char* key : {"p50_ms", "p90_ms", "p99_ms", "max_ms"}) out[key] = nullptr;
    return out;
  }
  out["p50_ms"] = Percentile(ms, 50);
  out["p90_ms"] = Percentile(ms, 90);
  out["p99_ms"] = Percentile(ms, 99);
  out["max_ms"] = *std::max_element(ms.begin(), ms.end());
  return out;
}

json ScenarioJson(const Scenario& scenario, const ScenarioRun& run,
                  const std::vector<std::string>& expected_codes) {
  std::map<std::string, int64_t> errors;
  int64_t unexpected = 0;
  for (const Sample& sample : run.samples) {
    if (sample.code == absl::StatusCode::kOk) continue;
    const std::string name = CodeName(sample.code);
    ++errors[name];
    if (std::find(expected_codes.begin(), expected_codes.end(), name) == expected_codes.end()) {
      ++unexpected;
    }
  }
  const double seconds = run.measured_s;
  const auto ok = [](const Sample& s) { return s.code == absl::StatusCode::kOk; };
  return {
      {"name", scenario.name},
      {"clients", scenario.clients},
      {"cached_fraction", scenario.cached_fraction},
      {"measured_s", seconds},
      {"requests", run.samples.size()},
      {"errors", errors},
      {"unexpected_errors", unexpected},
      // Latencies of successful calls only: a refusal answered at once would
      // flatter them.
      {"all", LatencyJson(run.samples, seconds, ok)},
      {"cached",
       LatencyJson(run.samples, seconds, [&](const Sample& s) { return ok(s) && s.cache_hit; })},
      {"uncached",
       LatencyJson(run.samples, seconds, [&](const Sample& s) { return ok(s) && !s.cache_hit; })},
  };
}

std::string ErrorsText(const json& errors) {
  if (errors.empty()) return "0";
  std::vector<std::string> parts;
  for (const auto& [code, n] : errors.items()) parts.push_back(absl::StrCat(code, " ", n.dump()));
  return absl::StrJoin(parts, ", ");
}

std::string Report(const json& result) {
  const json& c = result["config"];
  std::string report = absl::StrCat(
      "# loadgen: shardplan-server under load\n\n", "server ", result["server"].get<std::string>(),
      "; algorithm ", c["algorithm"].get<std::string>(), ", model ",
      c["model"].get<std::string>().empty() ? "(server default)" : c["model"].get<std::string>(),
      ", ", c["devices"].get<int>(), " devices, tasks from ", c["pool"].get<std::string>(), "; ",
      c["cached_tasks"].get<int>(), " cached tasks; per scenario ",
      NumberOrDash(c["warmup_s"], "%.0f"), " s warm-up, then ",
      NumberOrDash(c["duration_s"], "%.0f"),
      " s measured; client host: ", result["host_cpus"].get<int>(),
      " CPUs.\nPer scenario, \"all\" counts every call made in the measured window (errors "
      "included); req/s and latencies are those of the successful calls, as the client sees them; "
      "\"cached\" are the calls the server answered from its plan cache.\n\n",
      "| scenario | clients | cached fraction | calls | requests | errors | req/s | p50 ms | "
      "p90 ms | p99 ms | max ms |\n",
      "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (const json& s : result["scenarios"]) {
    for (const char* kind : {"all", "cached", "uncached"}) {
      const json& l = s[kind];
      const bool first = std::string(kind) == "all";
      absl::StrAppend(&report, "| ", first ? s["name"].get<std::string>() : "", " | ",
                      first ? absl::StrCat(s["clients"].get<int>()) : "", " | ",
                      first ? NumberOrDash(s["cached_fraction"]) : "", " | ", kind, " | ",
                      (first ? s : l)["requests"].get<int64_t>(), " | ",
                      first ? ErrorsText(s["errors"]) : "", " | ",
                      NumberOrDash(l["throughput_rps"], "%.1f"), " | ", NumberOrDash(l["p50_ms"]),
                      " | ", NumberOrDash(l["p90_ms"]), " | ", NumberOrDash(l["p99_ms"]), " | ",
                      NumberOrDash(l["max_ms"]), " |\n");
    }
  }
  return report;
}

json ConfigJson(const Config& config) {
  json scenarios = json::array();
  for (const Scenario& s : config.scenarios) {
    scenarios.push_back(
        {{"name", s.name}, {"clients", s.clients}, {"cached_fraction", s.cached_fraction}});
  }
  return {{"scenarios", scenarios},
          {"duration_s", config.duration_s},
          {"warmup_s", config.warmup_s},
          {"algorithm", config.algorithm},
          {"model", config.model},
          {"devices", config.tasks.num_devices},
          {"min_tables", config.tasks.min_tables},
          {"max_tables", config.tasks.max_tables},
          {"cached_tasks", config.cached_tasks},
          {"seed", config.seed},
          {"pool", config.pool},
          {"timeout_s", config.timeout_s},
          {"expected_codes", config.expected_codes}};
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const Config config, ParseConfig(args));
  Workload workload;
  if (absl::Status s = BuildWorkload(config, workload); !s.ok()) return s;

  testing::ServerProcess own_server;
  std::string target = config.server;
  std::string server_label = absl::StrCat(config.server, " (given)");
  if (target.empty()) {
    // ServerProcess starts $SHARDPLAN_SERVER_BINARY when set.
    if (!config.server_binary.empty()) {
      setenv("SHARDPLAN_SERVER_BINARY", config.server_binary.c_str(), 1);
    }
    std::vector<std::string> server_args = {"--models_dir", config.models_dir};
    for (absl::string_view arg : absl::StrSplit(config.server_args, ' ', absl::SkipEmpty())) {
      server_args.emplace_back(arg);
    }
    std::cerr << "starting " << testing::ServerBinaryPath() << " "
              << absl::StrJoin(server_args, " ") << "\n";
    if (absl::Status s = own_server.Start(server_args); !s.ok()) return s;
    target = own_server.target();
    server_label = absl::StrCat(testing::ServerBinaryPath(), " ", absl::StrJoin(server_args, " "),
                                " (started by loadgen)");
  }
  std::unique_ptr<client::PlannerClient> setup = OwnConnectionClient(target, config);

  json result = {{"config", ConfigJson(config)},
                 {"server", server_label},
                 {"host_cpus", static_cast<int>(std::thread::hardware_concurrency())},
                 {"scenarios", json::array()}};
  Progress progress(static_cast<int>(config.scenarios.size()));
  int64_t unexpected = 0;
  for (size_t i = 0; i < config.scenarios.size(); ++i) {
    const Scenario& scenario = config.scenarios[i];
    // Before each scenario that uses it: an uncached run may have evicted the set.
    if (scenario.cached_fraction > 0) {
      if (absl::Status s = PlanCachedSet(*setup, workload); !s.ok()) return s;
    }
    const ScenarioRun run =
        RunScenario(target, config, scenario, workload, progress, static_cast<int>(i) + 1,
                    static_cast<int>(config.scenarios.size()));
    json entry = ScenarioJson(scenario, run, config.expected_codes);
    unexpected += entry["unexpected_errors"].get<int64_t>();
    result["scenarios"].push_back(std::move(entry));
  }
  std::cerr << "\n";
  if (absl::Status s = offline::WriteTextFile(config.out + ".json", result.dump(2) + "\n");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteReport(config.out, Report(result)); !s.ok()) return s;
  if (unexpected > 0) {
    return absl::InternalError(absl::StrCat(
        unexpected, " requests failed with a code outside --expected_codes (see errors)"));
  }
  return absl::OkStatus();
}

Command LoadgenCommand() {
  return Command{
      .group = "bench",
      .name = "loadgen",
      .summary = "drive a shardplan-server with concurrent clients; throughput and latency",
      .description =
          "Each scenario runs CLIENTS closed-loop clients (one connection each) for --warmup_s\n"
          "unmeasured and --duration_s measured seconds. A request repeats one of the\n"
          "--cached_tasks tasks planned before the run (a cache hit) with the scenario's cached\n"
          "fraction, else is unique (a fresh seed: planned). Tasks are drawn from the table pool\n"
          "like the reference's task generator. Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"scenarios", "LIST",
               "cached (clients=--clients, all cached), uncached (--uncached_clients, none "
               "cached), mixed (--clients, --cached_fraction) or NAME:CLIENTS:FRACTION",
               "cached,uncached,mixed"},
              {"clients", "N", "clients of the cached and mixed scenarios", "64"},
              {"uncached_clients", "N", "clients of the uncached scenario", "4"},
              {"cached_fraction", "F", "share of cached requests in the mixed scenario", "0.9"},
              {"duration_s", "S", "measured seconds per scenario", "20"},
              {"warmup_s", "S", "unmeasured seconds before each scenario", "3"},
              {"algorithm", "NAME", "planning algorithm", "neuroshard"},
              {"model", "SPEC", "cost model (\"\": the server's default)", "sim-rtx2080ti"},
              {"devices", "N", "devices of every task", "4"},
              {"min_tables", "N", "fewest tables per task (0: the reference's range)", "0"},
              {"max_tables", "N", "most tables per task (0: the reference's range)", "0"},
              {"cached_tasks", "N", "distinct tasks of the cached set", "8"},
              {"seed", "N", "seed of the tasks and of the clients' choices", "0"},
              {"pool", "FILE", "table pool the tasks are drawn from", offline::kDefaultPool},
              {"server", "HOST:PORT", "a running server (default: start one)", ""},
              {"server_binary", "PATH", "the server to start (default: the built one)", ""},
              {"models_dir", "DIR", "--models_dir of the started server", "models"},
              {"server_args", "\"ARGS\"", "more flags for the started server, space-separated", ""},
              {"timeout_s", "S", "deadline of every call", "60"},
              {"expected_codes", "LIST",
               "error codes that do not fail the run (the server's load shedding)",
               "RESOURCE_EXHAUSTED"},
              {"out", "PREFIX", "where the results go (.md, .json)", "bench/results/loadgen"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::LoadgenCommand(), argc, argv);
}
