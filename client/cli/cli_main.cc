#include "client/cli/cli_main.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/exit_codes.h"
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

}  // namespace

int CliMain(const std::vector<std::string>& args) {
  // Global options may precede the command name...
  ParsedFlags global_flags;
  absl::StatusOr<size_t> command_index =
      ParseFlags(GlobalFlags(), args, /*stop_at_positional=*/true, global_flags);
  if (!command_index.ok()) return ReportError(command_index.status(), "");
  if (*command_index >= args.size()) {
    if (global_flags.Has("help")) {
      std::cout << ToolHelp();
      return kExitOk;
    }
    std::cerr << ToolHelp();
    return ReportError(UsageError("no command given"), "");
  }
  // Offline commands belong to shardplan-offline, which takes the same arguments.
  if (IsOfflineCommand(args[*command_index])) {
    return ExecOfflineTool(std::vector<std::string>(args.begin() + *command_index, args.end()));
  }
  // `shardplan help [COMMAND]` reads like `shardplan [COMMAND] --help`.
  if (args[*command_index] == "help") {
    if (*command_index + 1 >= args.size()) {
      std::cout << ToolHelp();
      return kExitOk;
    }
    if (IsOfflineCommand(args[*command_index + 1])) {
      return ExecOfflineTool({args[*command_index + 1], "--help"});
    }
    const Command* command = FindCommand(args[*command_index + 1]);
    if (command == nullptr) {
      return ReportError(
          UsageError(absl::StrCat("unknown command '", args[*command_index + 1], "'")), "");
    }
    std::cout << CommandHelp(*command);
    return kExitOk;
  }
  const Command* command = FindCommand(args[*command_index]);
  if (command == nullptr) {
    return ReportError(UsageError(absl::StrCat("unknown command '", args[*command_index], "'")),
                       "");
  }

  // ...and follow it, mixed with the command's own.
  std::vector<FlagSpec> specs = command->flags;
  for (FlagSpec& flag : GlobalFlags()) specs.push_back(std::move(flag));
  Invocation invocation;
  const std::vector<std::string> rest(args.begin() + *command_index + 1, args.end());
  if (absl::StatusOr<size_t> parsed =
          ParseFlags(specs, rest, /*stop_at_positional=*/false, invocation.flags);
      !parsed.ok()) {
    return ReportError(parsed.status(), command->name);
  }
  if (global_flags.Has("help") || invocation.flags.Has("help")) {
    std::cout << CommandHelp(*command);
    return kExitOk;
  }
  if (absl::Status status = ReadGlobalOptions(global_flags, invocation.global); !status.ok()) {
    return ReportError(status, command->name);
  }
  if (absl::Status status = ReadGlobalOptions(invocation.flags, invocation.global); !status.ok()) {
    return ReportError(status, command->name);
  }
  const size_t count = invocation.args().size();
  if (count < command->min_args || count > command->max_args) {
    const std::string expected = command->arguments.empty() ? "no arguments" : command->arguments;
    return ReportError(UsageError(absl::StrCat(command->name, " expects ", expected, ", got ",
                                               count, count == 1 ? " argument" : " arguments")),
                       command->name);
  }
  absl::StatusOr<std::unique_ptr<client::PlannerClient>> client = ConnectClient(invocation.global);
  if (!client.ok()) return ReportError(client.status(), command->name);
  invocation.client = client->get();
  return ReportError(command->run(invocation), command->name);
}

}  // namespace shardplan::cli
