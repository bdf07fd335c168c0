// shardplan: command-line client of the planner service. See docs/cli.md.
//
//   shardplan [global options] COMMAND [options] [ARGS]
#include <string>
#include <vector>

#include "client/cli/cli_main.h"

int main(int argc, char** argv) {
  return shardplan::cli::CliMain(std::vector<std::string>(argv + 1, argv + argc));
}
