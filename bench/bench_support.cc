#include "bench/bench_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "costmodels/artifacts/model_directory_loader.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/tools/tool_support.h"

namespace shardplan::bench {

using ::nlohmann::json;

absl::StatusOr<std::vector<int>> IntList(const OptionValues& args, const std::string& flag) {
  std::vector<int> values;
  for (const absl::string_view part : absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty())) {
    int value = 0;
    if (!absl::SimpleAtoi(part, &value) || value < 1) {
      return UsageError(absl::StrCat("--", flag, ": '", part, "' is not a positive integer"));
    }
    values.push_back(value);
  }
  if (values.empty()) return UsageError(absl::StrCat("--", flag, " is empty"));
  return values;
}

absl::StatusOr<std::vector<std::pair<int, int>>> IntPairList(const OptionValues& args,
                                                             const std::string& flag,
                                                             absl::string_view shape) {
  std::vector<std::pair<int, int>> pairs;
  for (const absl::string_view part : absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> ab = absl::StrSplit(part, 'x');
    std::pair<int, int> pair;
    if (ab.size() != 2 || !absl::SimpleAtoi(ab[0], &pair.first) ||
        !absl::SimpleAtoi(ab[1], &pair.second) || pair.first < 1 || pair.second < 1) {
      return UsageError(absl::StrCat("--", flag, ": '", part, "' is not ", shape));
    }
    pairs.push_back(pair);
  }
  return pairs;
}

absl::Status LoadModels(const std::string& models_dir, ModelRegistry& models) {
  if (absl::Status s = RegisterBuiltinModels(models); !s.ok()) return s;
  ModelDirectoryLoader loader(models_dir, &models,
                              [](const std::string& line) { std::cerr << line << "\n"; });
  return loader.Reload().status();
}

absl::StatusOr<std::shared_ptr<const Policy>> LoadLatestPolicy(const std::string& models_dir,
                                                               const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(models_dir) / name;
  std::optional<std::string> newest;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string version = entry.path().filename().string();
    if (version.empty() || version.front() == '.' || !entry.is_directory(ec)) continue;
    if (!newest.has_value() || VersionLess(*newest, version)) newest = version;
  }
  if (!newest.has_value()) {
    return absl::NotFoundError(absl::StrCat(dir.string(), ": no policy version there"));
  }
  absl::StatusOr<LoadedPolicy> loaded = ReadPolicyBundle((dir / *newest).string());
  if (!loaded.ok()) return loaded.status();
  return loaded->policy;
}

absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeGroundTruth(int devices,
                                                                 const std::string& profile) {
  return MakeSimBackend(profile, devices, SimOptions{});
}

TimedPlan PlanAndTime(const Algorithm& planner, const Task& task, const CostModel& model,
                      const PlanTaskOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Plan> plan = PlanTask(planner, task, model, options);
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double planning_ms = plan.ok() ? plan->stats.planning_time_ms : wall_ms;
  return TimedPlan{std::move(plan), planning_ms};
}

std::map<std::string, json> PreviousEntries(const std::string& path, const json& config,
                                            const std::string& field,
                                            const std::function<std::string(const json&)>& key) {
  std::map<std::string, json> previous;
  std::ifstream in(path);
  if (!in) return previous;
  const json old = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!old.is_object() || old.value("config", json()) != config) return previous;
  for (const json& entry : old.value(field, json::array())) previous[key(entry)] = entry;
  return previous;
}

void Progress::Step(const std::string& label, int i, int n) {
  ++done_;
  ++computed_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  Print(absl::StrFormat("\r[%s] task %d/%d  total %d/%d  elapsed %.0fs  ETA %.0fs   ", label, i, n,
                        done_, total_, elapsed, elapsed / computed_ * (total_ - done_)));
}

void Progress::Working(const std::string& label, int i, int n, const std::string& what) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta;
  if (computed_ > 0) {
    eta = absl::StrFormat("  ETA %.0fs", elapsed / computed_ * (total_ - done_));
  }
  Print(absl::StrFormat("\r[%s] task %d/%d: %s  total %d/%d  elapsed %.0fs%s   ", label, i, n, what,
                        done_, total_, elapsed, eta));
}

void Progress::Print(const std::string& line) {
  std::cerr << line;
  // Blank out the rest of a longer previous line (a step right after a working line).
  if (line.size() < last_length_) std::cerr << std::string(last_length_ - line.size(), ' ');
  std::cerr << std::flush;
  last_length_ = line.size();
}

std::string NumberOrDash(const json& value, const char* format) {
  return value.is_null() ? "-" : absl::StrFormat(format, value.get<double>());
}

absl::Status WriteReport(const std::string& out_prefix, const std::string& report) {
  if (absl::Status s = offline::WriteTextFile(out_prefix + ".md", report); !s.ok()) return s;
  std::cout << report << "\nwrote " << out_prefix << ".json and " << out_prefix << ".md\n";
  return absl::OkStatus();
}

int CommandMain(const offline::Command& command, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (offline::AsksForHelp(args)) {
    std::cout << offline::CommandHelp(command);
    return kExitOk;
  }
  absl::StatusOr<OptionValues> parsed = offline::ParseArgs(command, args);
  return ReportError(parsed.ok() ? command.run(*parsed) : parsed.status(), command.name,
                     command.name);
}

}  // namespace shardplan::bench
