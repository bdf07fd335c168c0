// `shardplan evaluate TASK PLAN`: the server recomputes the cost of a plan the caller brings,
// under a cost model or measured on ground truth (--ground-truth sim:PROFILE).
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/access_figures_format.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/input_files.h"
#include "client/cli/output.h"
#include "client/cli/plan_format.h"
#include "client/cli/torchrec_format.h"

namespace shardplan::cli {
namespace {

absl::Status RunEvaluate(const Invocation& invocation) {
  if (invocation.args()[0] == "-" && invocation.args()[1] == "-") {
    return UsageError("TASK and PLAN cannot both be standard input");
  }
  absl::StatusOr<shardplan::v1::Task> task = ReadTask(invocation.args()[0]);
  if (!task.ok()) return task.status();
  // A TorchRec plan's data_parallel tables are replicas of the task's tables.
  absl::StatusOr<shardplan::v1::Plan> plan = ReadPlan(invocation.args()[1], TableShapesOf(*task));
  if (!plan.ok()) return plan.status();
  absl::StatusOr<OutputFormat> format = ResolveOutputFormat(invocation);
  if (!format.ok()) return format.status();
  shardplan::v1::EvaluatePlanRequest request;
  *request.mutable_task() = *std::move(task);
  *request.mutable_plan() = *std::move(plan);
  request.set_model(invocation.flags.Get("model"));
  request.set_ground_truth(invocation.flags.Get("ground-truth"));
  if (!request.model().empty() && !request.ground_truth().empty()) {
    return UsageError("--model and --ground-truth: give at most one");
  }
  absl::StatusOr<shardplan::v1::EvaluatePlanResponse> response =
      invocation.client->EvaluatePlan(request);
  if (!response.ok()) return response.status();
  if (*format == OutputFormat::kText) {
    return WriteOutput(absl::StrCat(FormatPlanText(response->plan(), std::nullopt), "\n",
                                    FormatAccessFiguresText(response->access_figures())),
                       invocation.flags.Get("output"));
  }
  return EmitPlan(invocation, response->plan(), std::nullopt, *response);
}

}  // namespace

Command EvaluateCommand() {
  Command command;
  command.name = "evaluate";
  command.arguments = "TASK PLAN";
  command.summary = "cost a plan under a cost model, or measure it on ground truth";
  command.description =
      "Sends TASK and the shards of PLAN to the server, which checks the plan against the\n"
      "task and recomputes every figure (memory, per-device costs, bottleneck) under --model,\n"
      "or, with --ground-truth sim:PROFILE, measures them on the cluster simulator (profiles\n"
      "rtx2080ti, h100-sxm, a100-sxm4, a100-sxm4-roce; the plan's cost kind is then\n"
      "ground_truth), and prints OPER's figures of the plan: per device its memory, the rows\n"
      "it looks up for every device and what it spends fetching rows from the others, with\n"
      "the device x device communication matrix (Eqs. 1-3, docs/oper.md) under the task's\n"
      "fetch costs (topology.intra_host_latency_us, inter_host_latency_us, fetch_cost_us).\n"
      "PLAN is a Plan, any JSON this tool prints with --json (a PlanResponse from 'plan', an\n"
      "EvaluatePlanResponse from 'evaluate', a finished JobStatus from 'get' or 'watch -o'),\n"
      "or a TorchRec ShardingPlan ('--format torchrec', or TorchRec's own planner: table_wise,\n"
      "column_wise, row_wise, table_row_wise, and data_parallel as replicas of TASK's table).\n"
      "Either file may be '-' for standard input.\n";
  command.flags = {
      OptionSpec::Value("model", "NAME[@VERSION]", "cost model (default: the server's choice)"),
      OptionSpec::Value("ground-truth", "sim:PROFILE",
                        "measure on the cluster simulator instead of a cost model")};
  for (OptionSpec& flag : PlanOutputFlags()) command.flags.push_back(std::move(flag));
  command.min_args = command.max_args = 2;
  command.run = RunEvaluate;
  return command;
}

}  // namespace shardplan::cli
