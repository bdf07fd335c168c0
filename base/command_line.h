#ifndef SHARDPLAN_BASE_COMMAND_LINE_H_
#define SHARDPLAN_BASE_COMMAND_LINE_H_

// The command-line kit every shardplan program parses with (CLI11 underneath): options declared
// as OptionSpecs, spelled --name VALUE, --name=VALUE, -x VALUE (switches: --name), "-" an
// argument (stdin), "--" the end of the options. Mistakes are usage errors (base/exit_codes.h)
// that name the option.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/option_values.h"

namespace shardplan {

// One option of a command line.
struct OptionSpec {
  std::string name;        // without dashes: "algorithm"
  std::string value_name;  // "NAME" in the help; empty for a switch
  std::string help;
  std::string default_value;  // what OptionValues::Get reads when absent; shown in the help
  bool required = false;
  char short_name = '\0';   // 'o' for -o; '\0' for none
  bool repeatable = false;  // every value kept (OptionValues::GetAll)

  // --name VALUE_NAME (or -x VALUE_NAME).
  static OptionSpec Value(std::string name, std::string value_name, std::string help,
                          char short_name = '\0');
  // --name, a switch.
  static OptionSpec Switch(std::string name, std::string help, char short_name = '\0');
  OptionSpec Repeatable() && {
    repeatable = true;
    return std::move(*this);
  }

  bool takes_value() const { return !value_name.empty(); }
};

// What a program's command line allows beyond its options.
struct ParseRules {
  // `tool [global options] COMMAND ...`: parsing stops at the first argument that is not an
  // option, which becomes, with everything after it unparsed, the positionals.
  bool stop_at_first_positional = false;
  // Otherwise a positional argument is a usage error ("unexpected argument 'x'").
  bool allow_positionals = true;
  // Otherwise the last value of an option given twice wins (repeatable options keep them all).
  bool repeated_option_is_error = false;
};

// Parses `args` (the words after the program or command name) against `specs`. Usage errors, in
// this order: a value missing or given to a switch, an unknown option, an unexpected argument,
// a required option missing, an option given twice.
absl::StatusOr<OptionValues> ParseOptions(const std::vector<OptionSpec>& specs,
                                          const std::vector<std::string>& args,
                                          const ParseRules& rules = {});

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_COMMAND_LINE_H_
