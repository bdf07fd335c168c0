#ifndef SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_
#define SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace shardplan::offline {

// Exit codes, the same table as the shardplan client's (docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitOther = 1,
  kExitUsage = 2,
  kExitInvalidArgument = 3,
  kExitFailedPrecondition = 4,
  kExitNotFound = 5,
  kExitCancelled = 9,  // interrupted (SIGINT); rerunning resumes
};

// One option, always spelled --name VALUE or --name=VALUE (switches: --name).
struct Flag {
  std::string name;
  std::string value_name;  // empty for a switch
  std::string help;
  std::string default_value;  // shown in the help; "" when the flag is required or has none
  bool required = false;
};

class Args;

// `shardplan-offline GROUP NAME [options]`.
struct Command {
  std::string group;  // "tables", "tasks", "data"
  std::string name;   // "collect"
  std::string summary;
  std::string description;
  std::vector<Flag> flags;
  std::function<absl::Status(const Args&)> run;
};

// The parsed options of one command line, with typed getters whose errors are usage errors
// naming the option.
class Args {
 public:
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The value, or the flag's default.
  std::string Get(const std::string& name) const;
  absl::StatusOr<int64_t> GetInt(const std::string& name) const;
  absl::StatusOr<uint64_t> GetUint(const std::string& name) const;
  absl::StatusOr<double> GetDouble(const std::string& name) const;

 private:
  friend absl::StatusOr<Args> ParseArgs(const Command& command,
                                        const std::vector<std::string>& args);
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> defaults_;
};

// Parses the options after "GROUP NAME". Usage errors for unknown, repeated or missing options.
absl::StatusOr<Args> ParseArgs(const Command& command, const std::vector<std::string>& args);

// A command-line mistake: exit 2.
absl::Status UsageError(const std::string& message);
bool IsUsageError(const absl::Status& status);

// Interrupted by SIGINT: exit 9.
absl::Status InterruptedError(const std::string& message);

int ExitCodeFor(const absl::Status& status);

std::string CommandHelp(const Command& command);

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_OFFLINE_COMMAND_H_
