// `shardplan report TASK PLAN --device-ms T0,T1,...`: tells the server what one training
// iteration of PLAN really took on each device, so it tracks its cost model's error
// (ReportMeasurement; docs/server.md, "Measured costs").
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/input_files.h"
#include "client/cli/output.h"
#include "client/cli/torchrec_format.h"

namespace shardplan::cli {
namespace {

absl::StatusOr<std::vector<double>> ParseDeviceMs(const std::string& text) {
  std::vector<double> values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double value = 0.0;
    if (!absl::SimpleAtod(part, &value)) {
      return UsageError(absl::StrCat("--device-ms: \"", part, "\" is not a number of ms"));
    }
    values.push_back(value);
  }
  return values;
}

std::string FormatReport(const shardplan::v1::ReportMeasurementResponse& report) {
  return absl::StrFormat(
      "model %s: predicted %.3f ms, measured %.3f ms (the slowest device), error %+.1f%%\n"
      "its mean error over its last %d report(s) on this server: %.1f%%\n",
      report.cost_model(), report.predicted_ms(), report.measured_ms(),
      100 * report.relative_error(), report.reports(), 100 * report.mean_abs_relative_error());
}

absl::Status RunReport(const Invocation& invocation) {
  if (invocation.args()[0] == "-" && invocation.args()[1] == "-") {
    return UsageError("TASK and PLAN cannot both be standard input");
  }
  if (!invocation.flags.Has("device-ms")) {
    return UsageError("--device-ms: give the measured time of every device, in device order");
  }
  absl::StatusOr<std::vector<double>> device_ms = ParseDeviceMs(invocation.flags.Get("device-ms"));
  if (!device_ms.ok()) return device_ms.status();
  absl::StatusOr<shardplan::v1::Task> task = ReadTask(invocation.args()[0]);
  if (!task.ok()) return task.status();
  absl::StatusOr<shardplan::v1::Plan> plan = ReadPlan(invocation.args()[1], TableShapesOf(*task));
  if (!plan.ok()) return plan.status();
  shardplan::v1::ReportMeasurementRequest request;
  *request.mutable_task() = *std::move(task);
  *request.mutable_plan() = *std::move(plan);
  request.set_model(invocation.flags.Get("model"));
  for (double ms : *device_ms) request.add_device_ms(ms);
  absl::StatusOr<shardplan::v1::ReportMeasurementResponse> response =
      invocation.client->ReportMeasurement(request);
  if (!response.ok()) return response.status();
  return WriteOutput(invocation.global.json ? ToJson(*response) : FormatReport(*response), "");
}

}  // namespace

Command ReportCommand() {
  Command command;
  command.name = "report";
  command.arguments = "TASK PLAN";
  command.summary = "report a plan's measured step times, so the server tracks its model's error";
  command.description =
      "Sends TASK, PLAN and what one training iteration of PLAN took on each device\n"
      "(--device-ms, ms, device order). The server evaluates PLAN under its cost model (PLAN's\n"
      "cost_model, or --model for a plan without one, such as a TorchRec plan), prints the\n"
      "predicted and measured step and their relative error, and keeps the error per model\n"
      "version (the metric shardplan_model_prediction_error). PLAN is read as by 'evaluate'.\n";
  command.flags = {
      OptionSpec::Value("device-ms", "T0,T1,...", "measured ms per device, in device order"),
      OptionSpec::Value("model", "NAME@VERSION", "the model checked (default: PLAN's)")};
  command.min_args = command.max_args = 2;
  command.run = RunReport;
  return command;
}

}  // namespace shardplan::cli
