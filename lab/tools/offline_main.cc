#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
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

// ReportError (base/exit_codes.h) pointing at the --help of `shardplan <words>`.
int Report(const absl::Status& status, const std::string& words) {
  return ReportError(status, "shardplan", words.empty() ? "shardplan" : "shardplan " + words);
}

}  // namespace

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* const commands = new std::vector<Command>{
      TablesGeneratePoolCommand(), TablesProfileCommand(),         TasksGenerateCommand(),
      DataCollectCommand(),        DataObservationsCommand(),      ModelTrainCommand(),
      ModelCheckCommand(),         PolicyTrainAutoShardCommand(), PolicyTrainDreamShardCommand(),
  };
  return *commands;
}

int OfflineMain(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << ToolHelp("");
    return Report(UsageError("no command given"), "");
  }
  if (IsHelp(args[0])) {
    std::cout << ToolHelp("");
    return kExitOk;
  }
  const std::string& group = args[0];
  bool known_group = false;
  for (const Command& command : AllCommands()) known_group |= command.group == group;
  if (!known_group) return Report(UsageError(absl::StrCat("unknown command '", group, "'")), "");
  if (args.size() < 2 || IsHelp(args[1])) {
    (args.size() < 2 ? std::cerr : std::cout) << ToolHelp(group);
    return args.size() < 2 ? Report(UsageError(absl::StrCat(group, " needs a command")), group)
                           : kExitOk;
  }
  const Command* found = nullptr;
  for (const Command& command : AllCommands()) {
    if (command.group == group && command.name == args[1]) found = &command;
  }
  if (found == nullptr) {
    return Report(UsageError(absl::StrCat("unknown command '", group, " ", args[1], "'")), group);
  }
  const std::vector<std::string> rest(args.begin() + 2, args.end());
  if (AsksForHelp(rest)) {
    std::cout << CommandHelp(*found);
    return kExitOk;
  }
  const std::string command_words = absl::StrCat(group, " ", found->name);
  absl::StatusOr<OptionValues> parsed = ParseArgs(*found, rest);
  if (!parsed.ok()) return Report(parsed.status(), command_words);
  return Report(found->run(*parsed), command_words);
}

}  // namespace shardplan::offline
