#include "bench/oper_server_timing.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "client/shardplan_client.h"
#include "tests/integration/support/server_process.h"
#include "wire/task_proto.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using ServingClock = std::chrono::steady_clock;

// One call's wall time as the caller sees it, the plan's own planning time and what it reports.
struct Call {
  double wall_ms = 0;
  double planning_ms = 0;
  std::string comm_us;  // comm_us.with_copies, as reported
  std::string cost_model;
  double response_bytes = 0;  // the serialized PlanResponse (server calls)
};

double WallMsSince(ServingClock::time_point start) {
  return std::chrono::duration<double, std::milli>(ServingClock::now() - start).count();
}

std::string CommOf(const std::map<std::string, std::string>& parameters) {
  const auto it = parameters.find("comm_us.with_copies");
  return it == parameters.end() ? "" : it->second;
}

absl::StatusOr<Call> InProcessCall(const Algorithm& oper, const ServedSetting& setting,
                                   const CostModel& model) {
  PlanTaskOptions options;
  options.params = setting.params;
  const auto start = ServingClock::now();
  absl::StatusOr<Plan> plan = PlanTask(oper, setting.task, model, options);
  const double wall = WallMsSince(start);
  if (!plan.ok()) return plan.status();
  return Call{wall, plan->stats.planning_time_ms, CommOf(plan->parameters), plan->cost_model};
}

absl::StatusOr<Call> ServerCall(client::PlannerClient& client, const v1::PlanRequest& request) {
  const auto start = ServingClock::now();
  absl::StatusOr<v1::PlanResponse> response = client.Plan(request);
  const double wall = WallMsSince(start);
  if (!response.ok()) return response.status();
  const v1::Plan& plan = response->plan();
  return Call{wall, plan.stats().planning_time_ms(),
              CommOf({plan.parameters().begin(), plan.parameters().end()}), plan.cost_model(),
              static_cast<double>(response->ByteSizeLong())};
}

json PathSummary(const std::vector<Call>& calls) {
  std::vector<double> wall, planning;
  for (const Call& call : calls) {
    wall.push_back(call.wall_ms);
    planning.push_back(call.planning_ms);
  }
  return {{"samples", calls.size()},
          {"median_wall_ms", Percentile(wall, 50)},
          {"median_planning_ms", Percentile(planning, 50)},
          {"cost_model", calls.front().cost_model},
          {"response_bytes", calls.front().response_bytes}};
}

}  // namespace

absl::StatusOr<json> TimeThroughServer(const std::vector<ServedSetting>& settings, int rounds,
                                       const std::string& models_dir, const Algorithm& oper,
                                       const CostModel& model, Progress& progress) {
  testing::ServerProcess server;
  SHARDPLAN_RETURN_IF_ERROR(
      server.Start({"--store=", "--metrics_address=", "--models_dir", models_dir}));
  client::ClientOptions options;
  options.default_timeout = absl::Seconds(120);
  options.max_attempts = 1;  // a retry would hide a failure this run must report
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<client::PlannerClient> client,
                             client::PlannerClient::Connect(server.target(), options));
  json entries = json::array();
  for (const ServedSetting& setting : settings) {
    v1::PlanRequest request;
    *request.mutable_task() = wire::TaskToProto(setting.task);
    request.set_algorithm("oper");
    request.set_bypass_cache(true);  // every call plans
    for (const auto& [name, value] : setting.params) (*request.mutable_parameters())[name] = value;
    SHARDPLAN_RETURN_IF_ERROR(InProcessCall(oper, setting, model).status());
    SHARDPLAN_RETURN_IF_ERROR(ServerCall(*client, request).status());
    std::vector<Call> in_process, served;
    for (int round = 0; round < rounds; ++round) {
      for (int k = 0; k < 2; ++k) {
        const bool server_turn = (round + k) % 2 == 1;
        progress.Working("server", round + 1, rounds, setting.label);
        SHARDPLAN_ASSIGN_OR_RETURN(Call call, server_turn ? ServerCall(*client, request)
                                                          : InProcessCall(oper, setting, model));
        (server_turn ? served : in_process).push_back(std::move(call));
        progress.Step("server", round + 1, rounds);
      }
    }
    const json local = PathSummary(in_process), remote = PathSummary(served);
    entries.push_back({{"label", setting.label},
                       {"in_process", local},
                       {"server", remote},
                       {"wall_ratio", remote["median_wall_ms"].get<double>() /
                                          local["median_wall_ms"].get<double>()},
                       {"same_communication", in_process.front().comm_us == served.front().comm_us},
                       {"comm_us.with_copies", in_process.front().comm_us}});
  }
  return entries;
}

std::string ServerTimingReport(const json& entries) {
  std::string report =
      "`oper` (its defaults but the threshold where the setting names one), in-process (PlanTask "
      "under analytic@1) and as a Plan call to a "
      "real shardplan-server (`--store= --metrics_address= --models_dir ...`, cache bypassed) "
      "through the C++ client, interleaved, after one unmeasured call each way. Wall: the "
      "caller's time; planning: the plan's stats.planning_time_ms (partitioning, placement, "
      "copies, layout, validation and evaluation); the server's wall adds the RPC, the task's "
      "and the plan's conversions and checks, and the response's transfer (its size in the last "
      "column).\n\n"
      "| setting | samples | in-process wall ms | in-process planning ms | server wall ms | "
      "server planning ms | server / in-process (wall) | server's model | same comm_us | response "
      "MiB |\n|---|---:|---:|---:|---:|---:|---:|---|---|---:|\n";
  for (const json& e : entries) {
    absl::StrAppendFormat(
        &report, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %s | %s | %.2f |\n",
        e["label"].get<std::string>(), e["server"]["samples"].get<int>(),
        e["in_process"]["median_wall_ms"].get<double>(),
        e["in_process"]["median_planning_ms"].get<double>(),
        e["server"]["median_wall_ms"].get<double>(),
        e["server"]["median_planning_ms"].get<double>(), e["wall_ratio"].get<double>(),
        e["server"]["cost_model"].get<std::string>(),
        e["same_communication"].get<bool>() ? "yes" : "NO",
        e["server"]["response_bytes"].get<double>() / (1 << 20));
  }
  return report;
}

}  // namespace shardplan::bench
