// `shardplan algorithms` and `shardplan models`: what the server offers.
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

absl::Status RunModels(const Invocation& invocation) {
  absl::StatusOr<shardplan::v1::ListModelsResponse> response = invocation.client->ListModels();
  if (!response.ok()) return response.status();
  return WriteOutput(invocation.global.json ? ToJson(*response) : FormatModelsText(*response), "");
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
  command.summary = "list the cost models and their versions";
  command.description =
      "Lists every cost-model version the server loaded ('*' marks the default and the latest\n"
      "version of each name). Select one with --model NAME or NAME@VERSION.\n";
  command.run = RunModels;
  return command;
}

}  // namespace shardplan::cli
