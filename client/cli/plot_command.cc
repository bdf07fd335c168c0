// `shardplan plot PLAN [PLAN...]`: plans drawn as an SVG picture (plan_plot.h), from plan files
// or from the server's jobs.
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/input_files.h"
#include "client/cli/output.h"
#include "client/cli/plan_plot.h"
#include "client/cli/torchrec_format.h"
#include "nlohmann/json.hpp"
#include "proto/json/json_document.h"

namespace shardplan::cli {
namespace {

constexpr char kDefaultOutput[] = "plan.svg";
constexpr size_t kMostPlans = 4;  // the help says "two to four"

// A plan file: "-", an existing file, or a path (a '/' or a .json ending) so that a mistyped
// file name is reported as a missing file, not as an unknown job. Anything else is a job id.
bool IsPlanFile(const std::string& argument) {
  std::error_code error;
  return argument == "-" || std::filesystem::is_regular_file(argument, error) ||
         absl::StrContains(argument, '/') || absl::EndsWith(argument, ".json");
}

// The plan an argument names: read from its file, or the plan of the job with that id.
absl::StatusOr<PlotPlan> ResolvePlan(const Invocation& invocation, const std::string& argument) {
  if (IsPlanFile(argument)) {
    const std::string source = argument == "-" ? "<stdin>" : argument;
    absl::StatusOr<std::string> text = ReadInput(argument);
    if (!text.ok()) return text.status();
    // A TorchRec plan has no figures to draw whatever its tables are (its data_parallel tables
    // could not even be read without the task): say so before parsing it.
    const absl::StatusOr<nlohmann::json> parsed = proto_json::ParseJsonDocument(*text);
    if (parsed.ok() && LooksLikeTorchRecPlan(*parsed)) {
      return PlotPlan{shardplan::v1::Plan(), source};
    }
    absl::StatusOr<shardplan::v1::Plan> plan = ParsePlan(*text, source);
    if (!plan.ok()) return plan.status();
    return PlotPlan{*std::move(plan), source};
  }
  absl::StatusOr<shardplan::v1::JobStatus> status = invocation.client->GetPlan(argument);
  if (!status.ok()) return status.status();
  if (status->has_result() && status->result().has_plan()) {
    return PlotPlan{status->result().plan(), absl::StrCat("job ", status->job_id())};
  }
  if (absl::Status outcome = JobOutcome(*status); !outcome.ok()) return outcome;
  return absl::UnknownError(absl::StrCat("job ", status->job_id(), " is ",
                                         shardplan::v1::JobState_Name(status->state()),
                                         ": no plan to plot yet"));
}

absl::Status RunPlot(const Invocation& invocation) {
  if (invocation.global.json) return UsageError("plot writes SVG; --json does not apply");
  size_t from_stdin = 0;
  for (const std::string& argument : invocation.args()) from_stdin += argument == "-" ? 1 : 0;
  if (from_stdin > 1) return UsageError("only one PLAN can be standard input");
  std::vector<PlotPlan> plans;
  for (const std::string& argument : invocation.args()) {
    absl::StatusOr<PlotPlan> plan = ResolvePlan(invocation, argument);
    if (!plan.ok()) return plan.status();
    plans.push_back(*std::move(plan));
  }
  PlotOptions options;
  options.title = invocation.flags.Get("title");
  absl::StatusOr<std::string> svg = PlotPlansSvg(plans, options);
  if (!svg.ok()) return svg.status();
  const std::string path = invocation.flags.Get("output", kDefaultOutput);
  if (absl::Status written = WriteOutput(*svg, path); !written.ok()) return written;
  if (path != "-") {
    std::cout << "wrote " << path << ": " << plans.size()
              << (plans.size() == 1 ? " plan" : " plans") << " of " << plans[0].plan.devices_size()
              << " devices\n";
  }
  return absl::OkStatus();
}

}  // namespace

Command PlotCommand() {
  Command command;
  command.name = "plot";
  command.arguments = "PLAN [PLAN...]";
  command.summary = "draw plans as an SVG picture: cost and memory per device";
  command.description = absl::StrCat(
      "Draws each PLAN as an SVG: per device, a stacked bar of compute, forward and backward\n"
      "communication ms (the bottleneck device outlined, with the plan's cost), and memory\n"
      "used against capacity. Two to four plans of one task (the same device count) are drawn\n"
      "side by side on the same scales, each titled with its algorithm, cost model and cost.\n"
      "\n"
      "PLAN is a plan file as 'plan', 'get' or 'evaluate' write it with --format json ('-':\n"
      "standard input), or a JOB_ID whose plan is fetched from the server as 'get' does. An\n"
      "existing file, a path with '/' or a name ending .json is a file; anything else a job id.\n"
      "A TorchRec plan has no per-device figures: 'shardplan evaluate TASK PLAN --json -o\n"
      "FILE' first. Writes ",
      kDefaultOutput, " unless -o names another file ('-o -': stdout).\n");
  command.flags = {
      OptionSpec::Value("output", "FILE",
                        absl::StrCat("write the SVG to FILE (default: ", kDefaultOutput, ")"), 'o'),
      OptionSpec::Value("title", "TEXT", "the picture's title (default: what it shows)"),
  };
  command.min_args = 1;
  command.max_args = kMostPlans;
  command.run = RunPlot;
  return command;
}

}  // namespace shardplan::cli
