// shardplan-offline: the offline commands (tables, tasks, data, model) of shardplan; see
// docs/offline-tools.md. `shardplan tables|tasks|data|model ...` execs this program.
#include <string>
#include <vector>

#include "lab/tools/commands.h"

int main(int argc, char** argv) {
  return shardplan::offline::OfflineMain(std::vector<std::string>(argv + 1, argv + argc));
}
