#include "client/cli/cli_main.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/command_line.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/help.h"
#include "client/cli/offline_dispatch.h"

namespace shardplan::cli {
namespace {

const Command* FindCommand(absl::string_view name) {
  for (const Command& command : AllCommands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

// ReportError (base/exit_codes.h) pointing at the --help of `command` ("": the tool's). The
// server's message says what is wrong with a token; say how to fix it on the client's side.
int ReportCliError(const absl::Status& status, absl::string_view command) {
  const int exit_code = ReportError(
      status, "shardplan", command.empty() ? "shardplan" : absl::StrCat("shardplan ", command));
  if (status.code() == absl::StatusCode::kUnauthenticated) {
    std::cerr << "shardplan: hint: the server wants a bearer token it knows: --token-file "
                 "FILE or $SHARDPLAN_TOKEN\n";
  } else if (status.code() == absl::StatusCode::kPermissionDenied) {
    std::cerr << "shardplan: hint: this call needs a token with another role (admin calls: "
                 "role admin)\n";
  }
  return exit_code;
}

}  // namespace

int CliMain(const std::vector<std::string>& args) {
  // Global options may precede the command name...
  absl::StatusOr<OptionValues> global_flags =
      ParseOptions(GlobalFlags(), args, {.stop_at_first_positional = true});
  if (!global_flags.ok()) return ReportCliError(global_flags.status(), "");
  // The command name and everything after it.
  const std::vector<std::string>& rest = global_flags->positionals();
  if (rest.empty()) {
    if (global_flags->Has("help")) {
      std::cout << ToolHelp();
      return kExitOk;
    }
    std::cerr << ToolHelp();
    return ReportCliError(UsageError("no command given"), "");
  }
  // Offline commands belong to shardplan-offline, which takes the same arguments.
  if (IsOfflineCommand(rest[0])) return ExecOfflineTool(rest);
  // `shardplan help [COMMAND]` reads like `shardplan [COMMAND] --help`.
  if (rest[0] == "help") {
    if (rest.size() < 2) {
      std::cout << ToolHelp();
      return kExitOk;
    }
    if (IsOfflineCommand(rest[1])) return ExecOfflineTool({rest[1], "--help"});
    const Command* command = FindCommand(rest[1]);
    if (command == nullptr) {
      return ReportCliError(UsageError(absl::StrCat("unknown command '", rest[1], "'")), "");
    }
    std::cout << CommandHelp(*command);
    return kExitOk;
  }
  const Command* command = FindCommand(rest[0]);
  if (command == nullptr) {
    return ReportCliError(UsageError(absl::StrCat("unknown command '", rest[0], "'")), "");
  }

  // ...and follow it, mixed with the command's own.
  std::vector<OptionSpec> specs = command->flags;
  for (OptionSpec& flag : GlobalFlags()) specs.push_back(std::move(flag));
  absl::StatusOr<OptionValues> flags =
      ParseOptions(specs, std::vector<std::string>(rest.begin() + 1, rest.end()));
  if (!flags.ok()) return ReportCliError(flags.status(), command->name);
  Invocation invocation;
  invocation.flags = *std::move(flags);
  if (global_flags->Has("help") || invocation.flags.Has("help")) {
    std::cout << CommandHelp(*command);
    return kExitOk;
  }
  if (absl::Status status = ReadGlobalOptions(*global_flags, invocation.global); !status.ok()) {
    return ReportCliError(status, command->name);
  }
  if (absl::Status status = ReadGlobalOptions(invocation.flags, invocation.global); !status.ok()) {
    return ReportCliError(status, command->name);
  }
  const size_t count = invocation.args().size();
  if (count < command->min_args || count > command->max_args) {
    const std::string expected = command->arguments.empty() ? "no arguments" : command->arguments;
    return ReportCliError(UsageError(absl::StrCat(command->name, " expects ", expected, ", got ",
                                                  count, count == 1 ? " argument" : " arguments")),
                          command->name);
  }
  absl::StatusOr<std::unique_ptr<client::PlannerClient>> client = ConnectClient(invocation.global);
  if (!client.ok()) return ReportCliError(client.status(), command->name);
  invocation.client = client->get();
  return ReportCliError(command->run(invocation), command->name);
}

}  // namespace shardplan::cli
