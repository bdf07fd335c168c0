#ifndef SHARDPLAN_CLIENT_CLI_FLAGS_H_
#define SHARDPLAN_CLIENT_CLI_FLAGS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shardplan::cli {

// One command-line option. Options are spelled --name VALUE, --name=VALUE or, with a short
// name, -x VALUE; boolean options take no value.
struct FlagSpec {
  std::string name;        // without dashes: "algorithm"
  char short_name = '\0';  // 'o' for -o; '\0' for none
  std::string value_name;  // "NAME" in the help; empty for a boolean option
  std::string help;
  bool repeatable = false;

  // --name VALUE_NAME (or -x VALUE_NAME).
  static FlagSpec Value(std::string name, std::string value_name, std::string help,
                        char short_name = '\0');
  // --name, a switch.
  static FlagSpec Switch(std::string name, std::string help, char short_name = '\0');
  FlagSpec Repeatable() && {
    repeatable = true;
    return std::move(*this);
  }

  bool takes_value() const { return !value_name.empty(); }
};

// The options and positional arguments of one command line.
class ParsedFlags {
 public:
  bool Has(absl::string_view name) const;
  // The last value given for `name`, or `fallback`.
  std::string Get(absl::string_view name, absl::string_view fallback = "") const;
  // Every value given for a repeatable option, in order.
  std::vector<std::string> GetAll(absl::string_view name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  void Add(const std::string& name, std::string value) {
    values_[name].push_back(std::move(value));
  }
  void AddPositional(std::string arg) { positionals_.push_back(std::move(arg)); }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> positionals_;
};

// Parses `args` against `specs` into `out`. "-" is a positional (stdin), "--" ends the options.
// With stop_at_positional, parsing stops at the first positional and returns its index (the
// command name of `shardplan [global options] COMMAND ...`); otherwise it returns args.size().
// Errors are usage errors (see exit_codes.h) naming the option.
absl::StatusOr<size_t> ParseFlags(const std::vector<FlagSpec>& specs,
                                  const std::vector<std::string>& args, bool stop_at_positional,
                                  ParsedFlags& out);

// The options block of a --help text: one aligned line per option.
std::string FormatFlagHelp(const std::vector<FlagSpec>& specs);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_FLAGS_H_
