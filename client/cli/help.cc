#include "client/cli/help.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/exit_codes.h"
#include "client/cli/offline_dispatch.h"

namespace shardplan::cli {
namespace {

std::string Capitalized(std::string text) {
  if (!text.empty()) text[0] = absl::ascii_toupper(static_cast<unsigned char>(text[0]));
  return text;
}

}  // namespace

std::string ToolHelp() {
  std::string text =
      "shardplan: client of the shardplan embedding-sharding planner service.\n\n"
      "Usage: shardplan [global options] COMMAND [options] [ARGS]\n\n"
      "Commands:\n";
  size_t width = 0;
  for (const Command& command : AllCommands()) width = std::max(width, command.name.size());
  for (const Command& command : AllCommands()) {
    std::string name = command.name;
    name.resize(width, ' ');
    absl::StrAppend(&text, "  ", name, "  ", command.summary, "\n");
  }
  absl::StrAppend(&text, "\n", OfflineCommandsHelp(),
                  "\nGlobal options (also accepted after the command):\n",
                  FormatFlagHelp(GlobalFlags()),
                  "\nEnvironment:\n  SHARDPLAN_SERVER  default for --server\n"
                  "  SHARDPLAN_TOKEN   bearer token when --token-file is not given\n\n",
                  "Errors go to stderr as 'shardplan: <CODE>: <message>'.\n", ExitCodeHelp(),
                  "\nRun 'shardplan COMMAND --help' for a command's options. See docs/cli.md.\n");
  return text;
}

std::string CommandHelp(const Command& command) {
  std::string text =
      absl::StrCat("Usage: shardplan ", command.name, command.flags.empty() ? "" : " [options]",
                   command.arguments.empty() ? "" : " ", command.arguments, "\n\n",
                   Capitalized(command.summary), ".\n\n", command.description);
  if (!command.flags.empty()) {
    absl::StrAppend(&text, "\nOptions:\n", FormatFlagHelp(command.flags));
  }
  absl::StrAppend(&text, "\nGlobal options:\n", FormatFlagHelp(GlobalFlags()), "\n",
                  ExitCodeHelp());
  return text;
}

}  // namespace shardplan::cli
