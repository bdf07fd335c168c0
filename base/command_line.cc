#include "base/command_line.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/cli11_app.h"
#include "base/exit_codes.h"

namespace shardplan {
namespace {

constexpr char kEndOfOptions[] = "--";

bool LooksLikeOption(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

// The arguments as CLI11 2.1 parses them: reversed, and with `--name=` (an empty value) split in
// two, because CLI11 2.1 reads `--name=` as `--name` and would take the next word as the value.
std::vector<std::string> Cli11Args(const std::vector<OptionSpec>& specs,
                                   const std::vector<std::string>& args) {
  std::vector<std::string> out;
  bool options_ended = false;
  for (const std::string& arg : args) {
    options_ended |= arg == kEndOfOptions;
    const bool empty_value =
        !options_ended && std::any_of(specs.begin(), specs.end(), [&arg](const OptionSpec& spec) {
          return spec.takes_value() && arg == absl::StrCat("--", spec.name, "=");
        });
    if (empty_value) {
      out.push_back(arg.substr(0, arg.size() - 1));
      out.emplace_back();
    } else {
      out.push_back(arg);
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// The spec of the option a CLI11 ArgumentMismatch names first: "--output: 1 required FILE
// missing", "json was given a disallowed flag override".
const OptionSpec* SpecNamedBy(const std::vector<OptionSpec>& specs, const std::string& message) {
  std::string name = message.substr(0, message.find_first_of(": "));
  name.erase(0, name.find_first_not_of('-'));
  for (const OptionSpec& spec : specs) {
    if (name == spec.name || (spec.short_name != '\0' && name == std::string(1, spec.short_name))) {
      return &spec;
    }
  }
  return nullptr;
}

// CLI11's parse errors in the words of docs/cli.md.
std::string DescribeParseError(const CLI::ParseError& error, const std::vector<OptionSpec>& specs) {
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    if (const OptionSpec* spec = SpecNamedBy(specs, error.what())) {
      if (!spec->takes_value()) return absl::StrCat("option --", spec->name, " takes no value");
      return absl::StrCat("option --", spec->name, " needs a value (", spec->value_name, ")");
    }
  }
  return error.what();
}

// Splits CLI11's leftovers into unknown options and positionals. Without a command they are
// unknown options and "--" markers; with stop_at_first_positional, the unknown options before
// the command, then the command and everything after it.
void SortLeftovers(const std::vector<std::string>& leftovers, bool stop_at_first_positional,
                   std::vector<std::string>& unknown, OptionValues& values) {
  bool command_seen = false;
  for (const std::string& arg : leftovers) {
    if (command_seen) {
      values.AddPositional(arg);
    } else if (arg == kEndOfOptions) {
      command_seen = stop_at_first_positional;
    } else if (!stop_at_first_positional || LooksLikeOption(arg)) {
      unknown.push_back(arg);
    } else {
      command_seen = true;
      values.AddPositional(arg);
    }
  }
}

}  // namespace

OptionSpec OptionSpec::Value(std::string name, std::string value_name, std::string help,
                             char short_name) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.value_name = std::move(value_name);
  spec.help = std::move(help);
  spec.short_name = short_name;
  return spec;
}

OptionSpec OptionSpec::Switch(std::string name, std::string help, char short_name) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.help = std::move(help);
  spec.short_name = short_name;
  return spec;
}

absl::StatusOr<OptionValues> ParseOptions(const std::vector<OptionSpec>& specs,
                                          const std::vector<std::string>& args,
                                          const ParseRules& rules) {
  std::unique_ptr<CLI::App> app = BuildApp(specs);
  // Unknown options are reported below, in the order of ParseOptions' contract.
  app->allow_extras();
  std::vector<std::string> positionals;
  if (rules.stop_at_first_positional) {
    app->prefix_command();
  } else {
    app->add_option("ARGS", positionals);
  }
  std::optional<std::string> missing_required;
  try {
    app->parse(Cli11Args(specs, args));
  } catch (const CLI::RequiredError& error) {
    missing_required = error.what();
  } catch (const CLI::ParseError& error) {
    return UsageError(DescribeParseError(error, specs));
  }

  OptionValues values;
  std::vector<std::string> unknown;
  for (std::string& positional : positionals) values.AddPositional(std::move(positional));
  SortLeftovers(app->remaining(), rules.stop_at_first_positional, unknown, values);
  if (!unknown.empty()) return UsageError(absl::StrCat("unknown option ", unknown.front()));
  if (!rules.allow_positionals && !values.positionals().empty()) {
    return UsageError(absl::StrCat("unexpected argument '", values.positionals().front(), "'"));
  }
  if (missing_required.has_value()) return UsageError(*missing_required);
  for (const OptionSpec& spec : specs) {
    if (!spec.default_value.empty()) values.SetDefault(spec.name, spec.default_value);
    const CLI::Option* option = FindOption(*app, spec);
    if (const size_t count = option->count();
        rules.repeated_option_is_error && !spec.repeatable && count > 1) {
      return UsageError(absl::StrCat("--", spec.name, " given ",
                                     count == 2 ? "twice" : absl::StrCat(count, " times")));
    }
    for (const std::string& value : option->results()) {
      values.Add(spec.name, spec.takes_value() ? value : "true");
    }
  }
  return values;
}

}  // namespace shardplan
