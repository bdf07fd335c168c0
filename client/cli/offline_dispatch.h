#ifndef SHARDPLAN_CLIENT_CLI_OFFLINE_DISPATCH_H_
#define SHARDPLAN_CLIENT_CLI_OFFLINE_DISPATCH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace shardplan::cli {

// `shardplan tables|tasks|data|model ...` are offline commands: they link the cost-model libraries,
// which the client must not, so they live in a separate executable, shardplan-offline
// (docs/offline-tools.md), that `shardplan` finds and execs with the same arguments.
bool IsOfflineCommand(absl::string_view name);

// The offline commands' lines for the tool's --help.
std::string OfflineCommandsHelp();

// shardplan-offline next to this executable (/proc/self/exe), else the first on PATH.
std::optional<std::string> FindOfflineTool();

// Replaces this process with `shardplan-offline args...` (args start at the command name).
// Returns only on failure, after printing why: 2 when the tool is missing, 1 when exec fails.
int ExecOfflineTool(const std::vector<std::string>& args);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_OFFLINE_DISPATCH_H_
