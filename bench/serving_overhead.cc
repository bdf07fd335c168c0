// serving_overhead: the same NeuroShard plans three ways, interleaved: in-process (PlanTask, as
// the offline benchmarks call it), as a synchronous Plan call to a real shardplan-server, and as
// a job (SubmitPlan, then WatchPlan to its end), both through the C++ client library with the
// cache bypassed; and, as a fourth path, the same Plan call answered from the cache (the round
// trip alone). It prints each path's median time and its ratio to in-process, so the cost of
// serving a plan is measured on the path users take. docs/benchmarks.md explains the output.
//
//   build/bench/serving_overhead [--devices 4,8] [--max-dim 128] [--tasks 100] [--rounds 2]
//       [--sizes TxD,...] [--params k=v,...]
//       [--model sim-rtx2080ti@2] [--algorithm neuroshard] [--seed 0]
//       [--pool data/table_pool/dlrm_856.json] [--models-dir models] [--server_args "..."]
//       [--out bench/results/serving_overhead]
//
// Tasks are the reference's (GenerateTask: T uniform per task, ids and dims redrawn until they
// fit), or with --sizes T tables on D devices (SyntheticTask with the histograms the server
// imputes, hosts of 8 devices) per size, the
// planning-time scale from 4 to 128 devices. Every task is planned once each way before measuring
// (unmeasured), so that the process-wide latent memos of both processes are equally warm. Each
// round then visits the tasks with the four paths in a rotating order. Times are wall clock as the
// caller sees them; the server's own planning time (Plan.stats.planning_time_ms) is reported beside
// them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
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
#include "bench/synthetic_tasks.h"
#include "client/shardplan_client.h"
#include "lab/data/generators.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/estimators/typical_access.h"
#include "planner/framework/algorithm_registry.h"
#include "tests/integration/support/server_process.h"
#include "wire/task_proto.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;
using Clock = std::chrono::steady_clock;

// cached_call: the same Plan request answered from the server's plan cache, i.e. the round trip
// (gRPC, validation, the request's hash, conversions) without the search.
constexpr const char* kPaths[] = {"in_process", "plan_call", "job", "cached_call"};
constexpr int kNumPaths = 4;

// --sizes: T tables on D devices.
struct Size {
  int tables = 0;
  int devices = 0;
};

// Devices per host of the --sizes tasks (the neural comm models' layouts are hosts of 8).
constexpr int kSizesDevicesPerHost = 8;

struct Config {
  std::vector<int> devices;
  std::vector<Size> sizes;                    // non-empty: these settings instead of devices
  std::map<std::string, std::string> params;  // the algorithm's, on every path
  int max_dim = 0;
  int tasks = 0;
  int rounds = 0;
  std::string model;
  std::string algorithm;
  uint64_t seed = 0;
  std::string pool;
  std::string models_dir;
  std::string server_args;
  std::string out;
};

// One timing: the caller's wall time and the planning time the plan reports.
struct Timing {
  double wall_ms = 0;
  double planning_ms = 0;
  double cost_ms = 0;
};

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

absl::StatusOr<v1::PlanRequest> RequestFor(const Task& task, const Config& config) {
  v1::PlanRequest request;
  *request.mutable_task() = wire::TaskToProto(task);
  request.set_algorithm(config.algorithm);
  request.set_model(config.model);
  request.set_bypass_cache(true);  // every call plans
  for (const auto& [name, value] : config.params) (*request.mutable_parameters())[name] = value;
  return request;
}

// The four paths for one setting.
class Paths {
 public:
  Paths(const Algorithm& planner, const CostModel& model, client::PlannerClient& client,
        std::map<std::string, std::string> params)
      : planner_(planner), model_(model), client_(client), params_(std::move(params)) {}

  absl::StatusOr<Timing> Run(int path, const Task& task, const v1::PlanRequest& request) {
    switch (path) {
      case 0:
        return InProcess(task);
      case 1:
        return PlanCall(request);
      case 2:
        return Job(request);
      default: {
        v1::PlanRequest cached = request;
        cached.set_bypass_cache(false);  // planned once in the warm-up pass, then a cache hit
        return PlanCall(cached);
      }
    }
  }

 private:
  absl::StatusOr<Timing> InProcess(const Task& task) {
    const auto start = Clock::now();
    PlanTaskOptions options;
    options.params = params_;
    absl::StatusOr<Plan> plan = PlanTask(planner_, CanonicalTask(task), model_, options);
    const double wall = MsSince(start);
    if (!plan.ok()) return plan.status();
    return Timing{wall, plan->stats.planning_time_ms, plan->cost_ms};
  }

  absl::StatusOr<Timing> PlanCall(const v1::PlanRequest& request) {
    const auto start = Clock::now();
    absl::StatusOr<v1::PlanResponse> response = client_.Plan(request);
    const double wall = MsSince(start);
    if (!response.ok()) return response.status();
    return Timing{wall, response->plan().stats().planning_time_ms(), response->plan().cost_ms()};
  }

  absl::StatusOr<Timing> Job(const v1::PlanRequest& request) {
    const auto start = Clock::now();
    absl::StatusOr<v1::SubmitPlanResponse> submitted = client_.SubmitPlan(request);
    if (!submitted.ok()) return submitted.status();
    absl::StatusOr<v1::JobStatus> done = client_.WatchPlan(submitted->job_id(), nullptr);
    const double wall = MsSince(start);
    if (!done.ok()) return done.status();
    if (done->state() != v1::SUCCEEDED) {
      return absl::InternalError(absl::StrCat("job ", done->job_id(), " ended ",
                                              v1::JobState_Name(done->state()), ": ",
                                              done->error_message()));
    }
    const v1::Plan& plan = done->result().plan();
    return Timing{wall, plan.stats().planning_time_ms(), plan.cost_ms()};
  }

  const Algorithm& planner_;
  const CostModel& model_;
  client::PlannerClient& client_;
  std::map<std::string, std::string> params_;
};

json SummaryJson(const std::vector<std::vector<Timing>>& timings) {
  json out = json::object();
  std::vector<double> in_process_wall;
  for (const Timing& t : timings[0]) in_process_wall.push_back(t.wall_ms);
  const double base = Percentile(in_process_wall, 50);
  for (int p = 0; p < kNumPaths; ++p) {
    std::vector<double> wall, planning, ratio;
    for (size_t i = 0; i < timings[p].size(); ++i) {
      wall.push_back(timings[p][i].wall_ms);
      planning.push_back(timings[p][i].planning_ms);
      ratio.push_back(timings[p][i].wall_ms / timings[0][i].wall_ms);
    }
    const double median = Percentile(wall, 50);
    out[kPaths[p]] = {{"samples", wall.size()},
                      {"median_wall_ms", median},
                      {"p90_wall_ms", Percentile(wall, 90)},
                      {"median_planning_ms", Percentile(planning, 50)},
                      {"median_ratio_to_in_process", median / base},
                      {"median_per_sample_ratio", Percentile(ratio, 50)}};
  }
  return out;
}

std::string Report(const json& result) {
  const json& c = result["config"];
  std::string report = absl::StrCat(
      "# serving_overhead: one plan in-process, as a Plan call and as a job\n\n",
      c["algorithm"].get<std::string>(), " under ", c["model"].get<std::string>(),
      c["params"].empty() ? "" : absl::StrCat(" (", c["params"].dump(), ")"), ", ",
      c["tasks"].get<int>(),
      c["sizes"].empty()
          ? absl::StrCat(" tasks per setting from the reference's distribution (seed ",
                         c["seed"].get<uint64_t>(), ", max dim ", c["max_dim"].get<int>(), "), ")
          : absl::StrCat(" tasks per setting (SyntheticTask: T tables on D devices, hosts of ",
                         kSizesDevicesPerHost, ", seed ", c["seed"].get<uint64_t>(), "), "),
      c["rounds"].get<int>(),
      " interleaved rounds after one unmeasured warm-up pass; the server was started with `",
      result["server"].get<std::string>(),
      "`. Wall: the caller's time (for a job, SubmitPlan until WatchPlan's last status); "
      "planning: the plan's own stats.planning_time_ms. Ratio: the path's median wall time over "
      "the in-process median (and, in brackets, the median of per-sample ratios). cached_call: "
      "the same Plan call answered from the server's cache, the round trip without the search "
      "(its planning time is the cached plan's).\n\n",
      "| setting | mean tables | path | median wall ms | p90 wall ms | median planning ms | "
      "ratio to in-process |\n|---|---|---|---:|---:|---:|---|\n");
  for (const json& s : result["settings"]) {
    for (int p = 0; p < kNumPaths; ++p) {
      const json& path = s["paths"][kPaths[p]];
      absl::StrAppend(&report, "| ", p == 0 ? s["label"].get<std::string>() : "", " | ",
                      p == 0 ? absl::StrFormat("%.1f", s["mean_tables"].get<double>()) : "", " | ",
                      kPaths[p], " | ", NumberOrDash(path["median_wall_ms"]), " | ",
                      NumberOrDash(path["p90_wall_ms"]), " | ",
                      NumberOrDash(path["median_planning_ms"]), " | ",
                      NumberOrDash(path["median_ratio_to_in_process"], "%.3f"), " (",
                      NumberOrDash(path["median_per_sample_ratio"], "%.3f"), ") |\n");
    }
  }
  return report;
}

absl::StatusOr<Config> ParseConfig(const OptionValues& args) {
  Config config;
  SHARDPLAN_ASSIGN_OR_RETURN(config.devices, IntList(args, "devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_dim, args.GetInt("max-dim"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t tasks, args.GetInt("tasks"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t rounds, args.GetInt("rounds"));
  SHARDPLAN_ASSIGN_OR_RETURN(config.seed, args.GetUint("seed"));
  if (DimGrid(static_cast<int32_t>(max_dim)).empty()) {
    return UsageError("--max-dim must be a positive multiple of 4");
  }
  if (tasks < 1 || rounds < 1) return UsageError("--tasks and --rounds must be positive");
  config.max_dim = static_cast<int>(max_dim);
  config.tasks = static_cast<int>(tasks);
  config.rounds = static_cast<int>(rounds);
  config.model = args.Get("model");
  config.algorithm = args.Get("algorithm");
  config.pool = args.Get("pool");
  config.models_dir = args.Get("models-dir");
  config.server_args = args.Get("server_args");
  config.out = args.Get("out");
  SHARDPLAN_ASSIGN_OR_RETURN(const auto sizes, IntPairList(args, "sizes", "TABLESxDEVICES"));
  for (const auto& [tables, devices] : sizes) config.sizes.push_back(Size{tables, devices});
  for (absl::string_view part : absl::StrSplit(args.Get("params"), ',', absl::SkipEmpty())) {
    const std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.first.empty() || kv.second.empty()) {
      return UsageError(absl::StrCat("--params: '", part, "' is not NAME=VALUE"));
    }
    config.params[kv.first] = kv.second;
  }
  return config;
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const Config config, ParseConfig(args));
  SHARDPLAN_ASSIGN_OR_RETURN(const TablePool pool, LoadTablePool(config.pool));
  ModelRegistry models;
  SHARDPLAN_RETURN_IF_ERROR(LoadModels(config.models_dir, models));
  SHARDPLAN_ASSIGN_OR_RETURN(const ResolvedModel model, models.Resolve(config.model));
  const AlgorithmRegistry algorithms = BuiltinAlgorithms();
  absl::StatusOr<const Algorithm*> planner = algorithms.Find(config.algorithm);
  if (!planner.ok()) return UsageError(absl::StrCat("--algorithm: ", planner.status().message()));

  std::vector<std::string> server_args = {"--models_dir", config.models_dir};
  for (absl::string_view arg : absl::StrSplit(config.server_args, ' ', absl::SkipEmpty())) {
    server_args.emplace_back(arg);
  }
  testing::ServerProcess server;
  SHARDPLAN_RETURN_IF_ERROR(server.Start(server_args));
  client::ClientOptions options;
  options.default_timeout = absl::Seconds(120);
  options.max_attempts = 1;  // a retry would hide a failure this run must report
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<client::PlannerClient> client,
                             client::PlannerClient::Connect(server.target(), options));
  Paths paths(**planner, *model.model, *client, config.params);

  json result = {{"config",
                  {{"devices", config.devices},
                   {"max_dim", config.max_dim},
                   {"sizes", json::array()},
                   {"params", config.params},
                   {"tasks", config.tasks},
                   {"rounds", config.rounds},
                   {"model", model.manifest.id()},
                   {"algorithm", config.algorithm},
                   {"seed", config.seed},
                   {"pool", config.pool}}},
                 {"server", absl::StrCat("shardplan-server ", absl::StrJoin(server_args, " "))},
                 {"host_cpus", static_cast<int>(std::thread::hardware_concurrency())},
                 {"settings", json::array()}};
  // The settings: device counts of Table-1 tasks, or --sizes of synthetic ones.
  std::vector<Size> settings;
  for (const Size& size : config.sizes) {
    settings.push_back(size);
    result["config"]["sizes"].push_back(absl::StrCat(size.tables, "x", size.devices));
  }
  if (settings.empty()) {
    for (int devices : config.devices) settings.push_back(Size{0, devices});
  }
  const int per_setting = config.tasks * (config.rounds + 1) * kNumPaths;
  Progress progress(static_cast<int>(settings.size()) * per_setting);
  for (const Size& size : settings) {
    const int devices = size.devices;
    const std::string label = size.tables > 0 ? absl::StrCat(size.tables, "x", devices)
                                              : absl::StrCat(devices, " devices");
    TaskGenOptions options;
    options.num_devices = devices;
    options.max_dim = config.max_dim;
    std::vector<Task> tasks;
    std::vector<v1::PlanRequest> requests;
    double tables = 0;
    for (int i = 0; i < config.tasks; ++i) {
      Task task;
      if (size.tables > 0) {
        task = SyntheticTask(size.tables, devices, config.seed + static_cast<uint64_t>(i));
        task.topology.devices_per_host = std::min(devices, kSizesDevicesPerHost);
        // SyntheticTask's tables carry no histogram, which the server imputes and PlanTask
        // does not: give them the server's imputation, so that both paths plan one task.
        for (Table& table : task.tables) {
          table.access_bins = TypicalAccessBins(table.rows, table.pooling_factor);
        }
      } else {
        SHARDPLAN_ASSIGN_OR_RETURN(task, GenerateTask(pool, options, config.seed, i));
      }
      SHARDPLAN_ASSIGN_OR_RETURN(v1::PlanRequest request, RequestFor(task, config));
      tables += static_cast<double>(task.tables.size());
      tasks.push_back(std::move(task));
      requests.push_back(std::move(request));
    }
    std::vector<std::vector<Timing>> timings(kNumPaths);
    int step = 0;
    for (int round = -1; round < config.rounds; ++round) {  // round -1: the warm-up pass
      for (int i = 0; i < config.tasks; ++i) {
        for (int k = 0; k < kNumPaths; ++k) {
          const int path = (i + k + std::max(round, 0)) % kNumPaths;  // rotating order
          absl::StatusOr<Timing> timing = paths.Run(path, tasks[i], requests[i]);
          if (!timing.ok()) {
            return absl::Status(timing.status().code(),
                                absl::StrCat(label, ", task ", i, ", ", kPaths[path], ": ",
                                             timing.status().message()));
          }
          if (round >= 0) timings[path].push_back(*timing);
          progress.Step(label, ++step, per_setting);
        }
      }
    }
    // The paths must have found the same plans (same cost) for the comparison to hold.
    for (size_t s = 0; s < timings[0].size(); ++s) {
      for (int p = 1; p < kNumPaths; ++p) {
        if (timings[p][s].cost_ms != timings[0][s].cost_ms) {
          return absl::InternalError(
              absl::StrCat(label, ": ", kPaths[p], " found another plan than in-process (cost ",
                           timings[p][s].cost_ms, " vs ", timings[0][s].cost_ms, ")"));
        }
      }
    }
    result["settings"].push_back({{"label", size.tables > 0 ? label : absl::StrCat(devices)},
                                  {"tables", size.tables},
                                  {"devices", devices},
                                  {"mean_tables", tables / config.tasks},
                                  {"paths", SummaryJson(timings)}});
  }
  std::cerr << "\n";
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(config.out + ".json", result.dump(2) + "\n"));
  return WriteReport(config.out, Report(result));
}

Command ServingOverheadCommand() {
  return Command{
      .group = "bench",
      .name = "serving_overhead",
      .summary = "one plan in-process, as a Plan call and as a job: the cost of serving it",
      .description =
          "Plans --tasks seeded tasks per device count in-process, through a Plan call and as a\n"
          "job on a shardplan-server it starts (--models-dir, --server_args), interleaved, and\n"
          "reports each path's median and its ratio to in-process. Results go to OUT.md and\n"
          "OUT.json.",
      .flags =
          {
              {"devices", "LIST", "device counts", "4,8"},
              {"max-dim", "D", "the tasks' largest table dim", "128"},
              {"tasks", "N", "tasks per device count (Table 1's at max dim 128)", "100"},
              {"rounds", "N", "measured rounds over the tasks", "2"},
              {"sizes", "TxD,...",
               "instead of --devices: T synthetic tables on D devices (hosts of 8) per setting",
               ""},
              {"params", "K=V,...", "the algorithm's parameters, on every path", ""},
              {"model", "SPEC", "cost model (in-process and in the requests)", "sim-rtx2080ti@2"},
              {"algorithm", "NAME", "planning algorithm", "neuroshard"},
              {"seed", "N", "seed of the tasks", "0"},
              {"pool", "FILE", "table pool the tasks are drawn from", offline::kDefaultPool},
              {"models-dir", "DIR", "model bundles, in-process and for the server", "models"},
              {"server_args", "\"ARGS\"", "more flags for the server, space-separated", ""},
              {"out", "PREFIX", "where the results go (.md, .json)",
               "bench/results/serving_overhead"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::ServingOverheadCommand(), argc, argv);
}
