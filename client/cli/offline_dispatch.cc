#include "client/cli/offline_dispatch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/exit_codes.h"

namespace shardplan::cli {
namespace {

constexpr char kOfflineTool[] = "shardplan-offline";

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace

bool IsOfflineCommand(absl::string_view name) {
  return name == "tables" || name == "tasks" || name == "data" || name == "model" ||
         name == "policy";
}

std::string OfflineCommandsHelp() {
  return "Offline commands (run by shardplan-offline, no server needed):\n"
         "  tables  generate or profile a table pool (generate-pool, profile)\n"
         "  tasks   generate planning tasks from a table pool (generate)\n"
         "  data    collect cost data and the observation datasets (collect, observations)\n"
         "  model   train the neural cost models into a model bundle (train)\n"
         "  policy  train a learned planner's policy into a policy bundle (train-autoshard,\n"
         "          train-dreamshard)\n";
}

std::optional<std::string> FindOfflineTool() {
  std::vector<char> self(4096);
  const ssize_t length = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length > 0) {
    std::string dir(self.data(), static_cast<size_t>(length));
    dir.resize(dir.rfind('/') + 1);
    if (IsExecutable(dir + kOfflineTool)) return dir + kOfflineTool;
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = std::string(dir) + "/" + kOfflineTool;
    if (IsExecutable(candidate)) return candidate;
  }
  return std::nullopt;
}

int ExecOfflineTool(const std::vector<std::string>& args) {
  const std::optional<std::string> tool = FindOfflineTool();
  const std::string command = args.empty() ? "" : args.front();
  if (!tool) {
    std::cerr << "shardplan: usage: '" << command << "' is an offline command of " << kOfflineTool
              << ", which is neither next to this shardplan nor on PATH; build or install the "
              << kOfflineTool << " target (see docs/offline-tools.md)\n";
    return kExitUsage;
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(kOfflineTool));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(tool->c_str(), argv.data());
  std::cerr << "shardplan: cannot run " << *tool << ": " << std::strerror(errno) << "\n";
  return kExitOther;
}

}  // namespace shardplan::cli
