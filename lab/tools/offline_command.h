#ifndef SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_
#define SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/command_line.h"
#include "base/option_values.h"

namespace shardplan::offline {

// `shardplan-offline GROUP NAME [options]`; the bench programs are commands too.
struct Command {
  std::string group;  // "tables", "tasks", "data"
  std::string name;   // "collect"
  std::string summary;
  std::string description;
  std::vector<OptionSpec> flags;
  std::function<absl::Status(const OptionValues&)> run;
};

// The options after "GROUP NAME": options only, each at most once (base/command_line.h's usage
// errors otherwise).
absl::StatusOr<OptionValues> ParseArgs(const Command& command,
                                       const std::vector<std::string>& args);

// Whether `args` hold --help or -h anywhere: help wins over every mistake on the line.
bool AsksForHelp(const std::vector<std::string>& args);

std::string CommandHelp(const Command& command);

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_
