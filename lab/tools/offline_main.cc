#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lab/tools/commands.h"

namespace shardplan::offline {
namespace {

bool IsHelp(const std::string& arg) { return arg == "--help" || arg == "-h" || arg == "help"; }

std::string ToolHelp(const std::string& only_group) {
  std::string text =
      only_group.empty()
          ? "Usage: shardplan-offline GROUP COMMAND [options]\n"
            "       (also reached as: shardplan GROUP COMMAND [options])\n\n"
            "Offline work on tables, tasks, cost data and model training; no server needed.\n\n"
            "Commands:\n"
          : absl::StrCat("Usage: shardplan ", only_group, " COMMAND [options]\n\nCommands:\n");
  for (const Command& command : AllCommands()) {
    if (!only_group.empty() && command.group != only_group) continue;
    std::string name = absl::StrCat(command.group, " ", command.name);
    name.resize(std::max<size_t>(name.size(), 22), ' ');
    absl::StrAppend(&text, "  ", name, "  ", command.summary, "\n");
  }
  absl::StrAppend(
      &text, "\nRun 'shardplan GROUP COMMAND --help' for options. See docs/offline-tools.md.\n");
  return text;
}

int Usage(const std::string& message, const std::string& help_for) {
  std::cerr << "shardplan: usage: " << message << " (see 'shardplan " << help_for << "--help')\n";
  return kExitUsage;
}

}  // namespace

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* const commands = new std::vector<Command>{
      TablesGeneratePoolCommand(), TablesProfileCommand(),    TasksGenerateCommand(),
      DataCollectCommand(),        DataObservationsCommand(),  ModelTrainCommand(),
  };
  return *commands;
}

int OfflineMain(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << ToolHelp("");
    return Usage("no command given", "");
  }
  if (IsHelp(args[0])) {
    std::cout << ToolHelp("");
    return kExitOk;
  }
  const std::string& group = args[0];
  bool known_group = false;
  for (const Command& command : AllCommands()) known_group |= command.group == group;
  if (!known_group) return Usage(absl::StrCat("unknown command '", group, "'"), "");
  if (args.size() < 2 || IsHelp(args[1])) {
    (args.size() < 2 ? std::cerr : std::cout) << ToolHelp(group);
    return args.size() < 2 ? Usage(absl::StrCat(group, " needs a command"), group + " ") : kExitOk;
  }
  const Command* found = nullptr;
  for (const Command& command : AllCommands()) {
    if (command.group == group && command.name == args[1]) found = &command;
  }
  if (found == nullptr) {
    return Usage(absl::StrCat("unknown command '", group, " ", args[1], "'"), group + " ");
  }
  const std::vector<std::string> rest(args.begin() + 2, args.end());
  for (const std::string& arg : rest) {
    if (arg == "--help" || arg == "-h") {
      std::cout << CommandHelp(*found);
      return kExitOk;
    }
  }
  const std::string help_for = absl::StrCat(group, " ", found->name, " ");
  absl::StatusOr<Args> parsed = ParseArgs(*found, rest);
  if (!parsed.ok()) return Usage(std::string(parsed.status().message()), help_for);
  const absl::Status status = found->run(*parsed);
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) return Usage(std::string(status.message()), help_for);
  std::cerr << "shardplan: " << absl::StatusCodeToString(status.code()) << ": " << status.message()
            << "\n";
  return ExitCodeFor(status);
}

}  // namespace shardplan::offline
