#ifndef SHARDPLAN_CLIENT_CLI_HELP_H_
#define SHARDPLAN_CLIENT_CLI_HELP_H_

#include <string>

#include "client/cli/command.h"

namespace shardplan::cli {

// `shardplan --help`: usage, commands, global options, environment, exit codes.
std::string ToolHelp();

// `shardplan COMMAND --help`: usage, description, the command's and the global options.
std::string CommandHelp(const Command& command);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_HELP_H_
