// `shardplan algorithms` and `shardplan models [reload]`: what the server offers.
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/catalog_format.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/output.h"

namespace shardplan::cli {
namespace {

absl::Status RunAlgorithms(const Invocation& invocation) {
  absl::StatusOr<shardplan::v1::ListAlgorithmsResponse> response =
      invocation.client->ListAlgorithms();
  if (!response.ok()) return response.status();
  return WriteOutput(invocation.global.json ? ToJson(*response) : FormatAlgorithmsText(*response),
                     "");
}

// `models reload`: prints the report; any refusal is FAILED_PRECONDITION (exit 4) after it.
absl::Status RunModelsReload(const Invocation& invocation) {
  absl::StatusOr<shardplan::v1::ReloadModelsResponse> response =
      invocation.client->ReloadModels();
  if (!response.ok()) return response.status();
  absl::Status written =
      WriteOutput(invocation.global.json ? ToJson(*response) : FormatReloadText(*response), "");
  if (!written.ok()) return written;
  if (response->refused_size() > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        response->refused_size(), " model bundle(s) refused; the server serves the rest"));
  }
  return absl::OkStatus();
}

absl::Status RunModels(const Invocation& invocation) {
  if (!invocation.args().empty()) {
    if (invocation.args()[0] == "reload") return RunModelsReload(invocation);
    return UsageError(absl::StrCat("models: unknown subcommand \"", invocation.args()[0],
                                   "\"; expected reload"));
  }
  absl::StatusOr<shardplan::v1::ListModelsResponse> response = invocation.client->ListModels();
  if (!response.ok()) return response.status();
  return WriteOutput(invocation.global.json
                         ? ToJson(*response)
                         : FormatModelsText(*response, invocation.flags.Has("long")),
                     "");
}

}  // namespace

Command AlgorithmsCommand() {
  Command command;
  command.name = "algorithms";
  command.summary = "list the planning algorithms and their parameters";
  command.description =
      "Lists the server's planning algorithms ('*': the default), the sharding types their\n"
      "plans contain, and every parameter with its type, default and range.\n";
  command.run = RunAlgorithms;
  return command;
}

Command ModelsCommand() {
  Command command;
  command.name = "models";
  command.arguments = "[reload]";
  command.summary = "list the cost models and their versions, or reload them";
  command.description =
      "Lists every cost-model version the server loaded ('*' marks the default and the latest\n"
      "version of each name) with its hardware profile, device counts and training data size;\n"
      "--long adds the test MSE per sub-model, the creation time and the description, a block\n"
      "per version. Select one with --model NAME or NAME@VERSION.\n"
      "\n"
      "`models reload` asks the server to rescan its models directory now (AdminService/\n"
      "ReloadModels) and prints what was loaded, unchanged, removed and refused (with the\n"
      "reason). Exit status 0 when nothing was refused, 4 when some bundle was (the server keeps\n"
      "serving the others, and the previous content of a version that was loaded before).\n";
  command.flags = {OptionSpec::Switch(
      "long", "a block per version with every field: test MSE, created, description")};
  command.max_args = 1;
  command.run = RunModels;
  return command;
}

}  // namespace shardplan::cli
