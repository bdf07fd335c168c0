// `shardplan plan` (synchronous), `shardplan replan` (a keyed plan anew) and `shardplan submit`
// (queue a job).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/input_files.h"
#include "client/cli/output.h"

namespace shardplan::cli {
namespace {

constexpr char kTaskHelp[] =
    "TASK is a shardplan.v1.Task as JSON (examples/README.md describes the fields), or '-' for\n"
    "standard input.\n";

// The request for the TASK argument under the command's options.
absl::StatusOr<shardplan::v1::PlanRequest> ReadPlanRequest(const Invocation& invocation) {
  absl::StatusOr<shardplan::v1::Task> task = ReadTask(invocation.args()[0]);
  if (!task.ok()) return task.status();
  return BuildPlanRequest(invocation, *std::move(task));
}

// `plan` and `replan` differ only in the call: replan needs a job key and asks the server for a
// new plan under it.
absl::Status RunPlanCall(const Invocation& invocation, bool replan) {
  absl::StatusOr<shardplan::v1::PlanRequest> request = ReadPlanRequest(invocation);
  if (!request.ok()) return request.status();
  if (replan && request->job_key().empty()) return UsageError("replan needs --job-key");
  // Check the output options before spending the server's time.
  if (absl::StatusOr<OutputFormat> format = ResolveOutputFormat(invocation); !format.ok()) {
    return format.status();
  }
  absl::StatusOr<shardplan::v1::PlanResponse> response =
      replan ? invocation.client->Replan(*request) : invocation.client->Plan(*request);
  if (!response.ok()) return response.status();
  return EmitPlan(invocation, response->plan(), response->cache_hit(), *response,
                  &request->task());
}

// A command that reads TASK, plans it with `run` and prints the plan.
Command PlanningCommand(std::string name, std::string summary, std::string description,
                        absl::Status (*run)(const Invocation&)) {
  Command command;
  command.name = std::move(name);
  command.arguments = "TASK";
  command.summary = std::move(summary);
  command.description = absl::StrCat(description, kTaskHelp);
  command.flags = PlanRequestFlags();
  for (OptionSpec& flag : PlanOutputFlags()) command.flags.push_back(std::move(flag));
  command.min_args = command.max_args = 1;
  command.run = run;
  return command;
}

absl::Status RunSubmit(const Invocation& invocation) {
  absl::StatusOr<shardplan::v1::PlanRequest> request = ReadPlanRequest(invocation);
  if (!request.ok()) return request.status();
  absl::StatusOr<shardplan::v1::SubmitPlanResponse> response =
      invocation.client->SubmitPlan(*request);
  if (!response.ok()) return response.status();
  // Text output is the bare job id, so that `id=$(shardplan submit task.json)` works.
  return WriteOutput(invocation.global.json ? ToJson(*response) : response->job_id() + "\n",
                     invocation.flags.Get("output"));
}

}  // namespace

Command PlanCommand() {
  return PlanningCommand(
      "plan", "plan a task and print the plan",
      "Plans TASK on the server and waits for the plan (see --timeout). Prints the plan\n"
      "summary, the per-device costs and the table -> device assignment; --json prints the\n"
      "PlanResponse, --format torchrec TorchRec's ShardingPlan JSON.\n\n",
      [](const Invocation& invocation) { return RunPlanCall(invocation, /*replan=*/false); });
}

Command ReplanCommand() {
  return PlanningCommand(
      "replan", "plan a keyed task anew and give its key the new plan",
      "Plans TASK again under --job-key KEY (required) and stores the new plan under KEY, so\n"
      "later 'shardplan plan --job-key KEY' calls return it: e.g. to move a training job to a\n"
      "newer cost model on purpose. The old plan stays readable with 'shardplan get ID'.\n\n",
      [](const Invocation& invocation) { return RunPlanCall(invocation, /*replan=*/true); });
}

Command SubmitCommand() {
  Command command;
  command.name = "submit";
  command.arguments = "TASK";
  command.summary = "queue a planning job and print its id";
  command.description = absl::StrCat(
      "Queues TASK on the server's job queue and prints the job id at once (--json: the\n"
      "SubmitPlanResponse). Follow it with 'shardplan watch ID', poll it with 'shardplan get\n"
      "ID', stop it with 'shardplan cancel ID'.\n\n",
      kTaskHelp);
  command.flags = PlanRequestFlags();
  command.flags.push_back(OutputFlag());
  command.min_args = command.max_args = 1;
  command.run = RunSubmit;
  return command;
}

}  // namespace shardplan::cli
