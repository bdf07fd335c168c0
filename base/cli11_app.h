#ifndef SHARDPLAN_BASE_CLI11_APP_H_
#define SHARDPLAN_BASE_CLI11_APP_H_

// The CLI11 side of the command-line kit, shared by parsing (command_line.cc) and help
// (option_help.cc), so that the help shows exactly the options the parser accepts. Only base/
// includes CLI11.

#include <memory>
#include <vector>

#include "CLI/CLI.hpp"
#include "base/command_line.h"

namespace shardplan {

// A CLI11 app with one option per spec: a switch as a flag that takes no value, a value option
// with its value name and default; repeatable ones keep every value (MultiOptionPolicy::TakeAll),
// others the last. CLI11's own --help is off: programs declare -h/--help as a switch, so that
// they decide what comes first, help or a mistake on the same line.
std::unique_ptr<CLI::App> BuildApp(const std::vector<OptionSpec>& specs);

// The CLI11 option of `spec` in an app built from it.
const CLI::Option* FindOption(const CLI::App& app, const OptionSpec& spec);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_CLI11_APP_H_
