// `shardplan get`, `watch` and `cancel`: the life of a job queued by `submit`.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/plan_format.h"

namespace shardplan::cli {
namespace {

using ::shardplan::v1::JobStatus;

constexpr char kJobExitHelp[] =
    "Exits 0 while the job is queued or running and when it succeeded, 10 when it FAILED (the\n"
    "job's error is printed), 9 when it was CANCELLED.\n";

// The final plan of a finished job in the requested format (text: the whole status).
absl::Status EmitJobResult(const Invocation& invocation, const JobStatus& status,
                           OutputFormat format) {
  const std::string path = invocation.flags.Get("output");
  if (format == OutputFormat::kText) return WriteOutput(FormatJobStatusText(status), path);
  if (format == OutputFormat::kJson) return WriteOutput(ToJson(status), path);
  if (!status.has_result() || !status.result().has_plan()) {
    absl::Status outcome = JobOutcome(status);
    if (!outcome.ok()) return outcome;
    return absl::UnknownError(absl::StrCat("job ", status.job_id(), " is ",
                                           shardplan::v1::JobState_Name(status.state()),
                                           ": no plan to write yet"));
  }
  return EmitPlan(invocation, status.result().plan(), status.result().cache_hit(), status);
}

absl::Status RunGet(const Invocation& invocation) {
  absl::StatusOr<OutputFormat> format = ResolveOutputFormat(invocation);
  if (!format.ok()) return format.status();
  absl::StatusOr<JobStatus> status = invocation.client->GetPlan(invocation.args()[0]);
  if (!status.ok()) return status.status();
  if (absl::Status written = EmitJobResult(invocation, *status, *format); !written.ok()) {
    return written;
  }
  return JobOutcome(*status);
}

absl::Status RunWatch(const Invocation& invocation) {
  absl::StatusOr<OutputFormat> format = ResolveOutputFormat(invocation);
  if (!format.ok()) return format.status();
  // Progress goes to stdout unless the torchrec plan itself goes there.
  const bool result_on_stdout = invocation.flags.Get("output", "-") == "-";
  std::ostream& progress =
      *format == OutputFormat::kTorchRec && result_on_stdout ? std::cerr : std::cout;
  std::string last_line;
  absl::StatusOr<JobStatus> final_status =
      invocation.client->WatchPlan(invocation.args()[0], [&](const JobStatus& status) {
        // JSON Lines in json mode; otherwise one line per visible change.
        std::string line = *format == OutputFormat::kJson ? ToJson(status, /*pretty=*/false)
                                                          : FormatProgressLine(status);
        if (line == last_line) return;
        progress << line << std::flush;
        last_line = std::move(line);
      });
  if (!final_status.ok()) return final_status.status();
  absl::Status written;
  if (*format == OutputFormat::kJson) {
    // The last JSON line already is the final status; -o gets it whole as well.
    if (!result_on_stdout) {
      written = WriteOutput(ToJson(*final_status), invocation.flags.Get("output"));
    }
  } else if (final_status->has_result() && final_status->result().has_plan()) {
    // The text plan follows the progress lines after a blank line.
    if (*format == OutputFormat::kText && result_on_stdout) std::cout << "\n";
    written = EmitPlan(invocation, final_status->result().plan(),
                       final_status->result().cache_hit(), *final_status);
  }
  if (!written.ok()) return written;
  return JobOutcome(*final_status);
}

absl::Status RunCancel(const Invocation& invocation) {
  absl::StatusOr<JobStatus> status = invocation.client->CancelPlan(invocation.args()[0]);
  if (!status.ok()) return status.status();
  const std::string text = invocation.global.json
                               ? ToJson(*status)
                               : absl::StrCat("job ", status->job_id(), ": ",
                                              shardplan::v1::JobState_Name(status->state()), "\n");
  return WriteOutput(text, invocation.flags.Get("output"));
}

absl::Status RunDelete(const Invocation& invocation) {
  const bool by_key = invocation.flags.Has("job-key");
  if (by_key == (invocation.args().size() == 1)) {
    return UsageError("delete wants either JOB_ID or --job-key KEY");
  }
  absl::StatusOr<shardplan::v1::DeletePlanResponse> response = invocation.client->DeletePlan(
      by_key ? "" : invocation.args()[0], by_key ? invocation.flags.Get("job-key") : "");
  if (!response.ok()) return response.status();
  const std::string text = invocation.global.json
                               ? ToJson(*response)
                               : absl::StrCat("deleted job ", response->job_id(), "\n");
  return WriteOutput(text, invocation.flags.Get("output"));
}

}  // namespace

Command GetCommand() {
  Command command;
  command.name = "get";
  command.arguments = "JOB_ID";
  command.summary = "print a job's status, and its plan once it succeeded";
  command.description = absl::StrCat(
      "Prints the job's state, progress and times, and its plan once it SUCCEEDED (--json:\n"
      "the JobStatus; --format torchrec: the plan in TorchRec's shape).\n\n",
      kJobExitHelp);
  command.flags = PlanOutputFlags();
  command.min_args = command.max_args = 1;
  command.run = RunGet;
  return command;
}

Command WatchCommand() {
  Command command;
  command.name = "watch";
  command.arguments = "JOB_ID";
  command.summary = "follow a job until it ends, printing its progress";
  command.description = absl::StrCat(
      "Prints a progress line for every change of the job until it ends, then its plan.\n"
      "--json prints every status as one JSON line (JSON Lines), the last one final.\n"
      "--format torchrec prints progress on stderr and the plan in TorchRec's shape.\n"
      "-o FILE writes the result to FILE. No deadline unless --timeout is given.\n\n",
      kJobExitHelp);
  command.flags = PlanOutputFlags();
  command.min_args = command.max_args = 1;
  command.run = RunWatch;
  return command;
}

Command CancelCommand() {
  Command command;
  command.name = "cancel";
  command.arguments = "JOB_ID";
  command.summary = "cancel a queued or running job";
  command.description =
      "Asks the server to stop the job and prints the state it is in afterwards: CANCELLED,\n"
      "or the state it had already reached. Exits 0 once the server answered.\n";
  command.flags = {OutputFlag()};
  command.min_args = command.max_args = 1;
  command.run = RunCancel;
  return command;
}

Command DeleteCommand() {
  Command command;
  command.name = "delete";
  command.arguments = "[JOB_ID]";
  command.summary = "delete a stored plan (admin)";
  command.description =
      "Removes a plan from the server's plan store, named by JOB_ID or by --job-key KEY\n"
      "(AdminService/DeletePlan; needs an admin token where the server checks tokens). A\n"
      "queued or running job must be cancelled first. The next plan under the key is new.\n";
  command.flags = {OptionSpec::Value("job-key", "KEY", "the plan's job key instead of JOB_ID"),
                   OutputFlag()};
  command.min_args = 0;
  command.max_args = 1;
  command.run = RunDelete;
  return command;
}

}  // namespace shardplan::cli
