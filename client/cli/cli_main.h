#ifndef SHARDPLAN_CLIENT_CLI_CLI_MAIN_H_
#define SHARDPLAN_CLIENT_CLI_CLI_MAIN_H_

#include <string>
#include <vector>

namespace shardplan::cli {

// The whole tool: `shardplan [global options] COMMAND [options] [ARGS]` with `args` the words
// after the program name. Prints results to stdout and errors to stderr; returns the exit code
// (base/exit_codes.h).
int CliMain(const std::vector<std::string>& args);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_CLI_MAIN_H_
