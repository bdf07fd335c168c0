#include "lab/tools/offline_command.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/option_help.h"

namespace shardplan::offline {

absl::StatusOr<OptionValues> ParseArgs(const Command& command,
                                       const std::vector<std::string>& args) {
  return ParseOptions(command.flags, args,
                      {.allow_positionals = false, .repeated_option_is_error = true});
}

bool AsksForHelp(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg == "--help" || arg == "-h"; });
}

std::string CommandHelp(const Command& command) {
  std::string text = absl::StrCat("Usage: shardplan ", command.group, " ", command.name,
                                  " [options]\n\n", command.summary, ".\n\n", command.description);
  if (!text.empty() && text.back() != '\n') text += "\n";
  std::vector<OptionSpec> flags = command.flags;
  flags.push_back(OptionSpec::Switch("help", "this help", 'h'));
  absl::StrAppend(&text, "\nOptions:\n", FormatOptionsHelp(flags),
                  "\nExit codes: 0 ok, 1 other error, 2 usage, 3 invalid input, 4 failed "
                  "precondition (e.g. --out holds another collection), 5 not found (e.g. unknown "
                  "profile), 9 interrupted (rerun to resume). See docs/offline-tools.md.\n");
  return text;
}

}  // namespace shardplan::offline
