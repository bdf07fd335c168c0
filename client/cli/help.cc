#include "client/cli/help.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/option_help.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/offline_dispatch.h"

namespace shardplan::cli {
namespace {

std::string Capitalized(std::string text) {
  if (!text.empty()) text[0] = absl::ascii_toupper(static_cast<unsigned char>(text[0]));
  return text;
}

// The exit-code table of base/exit_codes.h, with what each code means for this tool.
std::string ExitCodeHelp() {
  return "Exit codes:\n"
         "   0  ok\n"
         "   1  any other error\n"
         "   2  usage error (bad command line)\n"
         "   3  invalid argument (malformed or unreadable task/plan, rejected by the server;\n"
         "      an unreadable --tls-*/--token-file file)\n"
         "   4  failed precondition (an infeasible task: a table fits on no device; a job key\n"
         "      that names another request)\n"
         "   5  not found (unknown model, model version or job)\n"
         "   6  server unavailable (unreachable, or health NOT_SERVING)\n"
         "   7  deadline exceeded (--timeout)\n"
         "   8  resource exhausted (a server limit)\n"
         "   9  cancelled\n"
         "  10  job failed (get/watch of a job that ended FAILED)\n"
         "  11  unauthenticated (no bearer token, or one the server does not know: see\n"
         "      --token-file and $SHARDPLAN_TOKEN)\n"
         "  12  permission denied (the token's role may not make this call: admin calls,\n"
         "      models reload and delete, need role admin)\n";
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
                  FormatOptionsHelp(GlobalFlags()),
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
    absl::StrAppend(&text, "\nOptions:\n", FormatOptionsHelp(command.flags));
  }
  absl::StrAppend(&text, "\nGlobal options:\n", FormatOptionsHelp(GlobalFlags()), "\n",
                  ExitCodeHelp());
  return text;
}

}  // namespace shardplan::cli
