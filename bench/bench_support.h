#ifndef SHARDPLAN_BENCH_BENCH_SUPPORT_H_
#define SHARDPLAN_BENCH_BENCH_SUPPORT_H_

// What the table-printing benchmark programs (reproduce_table1, ablation, scale) share: flag
// parsing, statistics, model loading, ground-truth scoring, resuming from a previous run's JSON,
// the progress line and main().

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/option_values.h"
#include "base/statistics.h"
#include "costmodels/model_registry.h"
#include "groundtruth/hardware_backend.h"
#include "lab/tools/offline_command.h"
#include "nlohmann/json.hpp"
#include "planner/domain/policy.h"
#include "planner/framework/plan_task.h"

namespace shardplan::bench {

// The ground truth of the paper's GPUs (8x 2080 Ti), as the shipped sim model was trained on.
inline constexpr char kGroundTruthProfile[] = "rtx2080ti";

// --flag as a comma-separated list of positive integers; a usage error naming the flag.
absl::StatusOr<std::vector<int>> IntList(const OptionValues& args, const std::string& flag);

// --flag as a comma-separated list of AxB pairs of positive integers ("100x8,1000x16"); a usage
// error naming the flag and `shape` ("TABLESxDEVICES") for a malformed one. May be empty.
absl::StatusOr<std::vector<std::pair<int, int>>> IntPairList(const OptionValues& args,
                                                             const std::string& flag,
                                                             absl::string_view shape);

// The built-in models plus every bundle under `models_dir` (refusals are logged to stderr).
absl::Status LoadModels(const std::string& models_dir, ModelRegistry& models);

// The newest version (VersionLess) of policy bundle <models_dir>/<name>/, read and verified
// (ReadPolicyBundle). NOT_FOUND naming the directory when it holds no version.
absl::StatusOr<std::shared_ptr<const Policy>> LoadLatestPolicy(const std::string& models_dir,
                                                               const std::string& name);

// The ground-truth backend: the sim backend, `profile` (kGroundTruthProfile by default), noise
// off.
absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeGroundTruth(
    int devices, const std::string& profile = kGroundTruthProfile);

// One PlanTask call and its planning time: Plan.stats.planning_time_ms, or the wall time when
// planning failed.
struct TimedPlan {
  absl::StatusOr<Plan> plan;
  double planning_ms = 0.0;
};
TimedPlan PlanAndTime(const Algorithm& planner, const Task& task, const CostModel& model,
                      const PlanTaskOptions& options);

// The entries of array `field` of a previous run's JSON at `path`, by key(entry), if that run's
// "config" equals `config`; empty otherwise (no file, unreadable, other configuration).
std::map<std::string, nlohmann::json> PreviousEntries(
    const std::string& path, const nlohmann::json& config, const std::string& field,
    const std::function<std::string(const nlohmann::json&)>& key);

// The progress line on stderr: "\r[label] task i/n  total done/total  elapsed Xs  ETA Ys".
class Progress {
 public:
  explicit Progress(int total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  // `n` items taken from a previous run.
  void Reuse(int n) { done_ += n; }
  // One item computed: item `i` (1-based) of `n` under `label`.
  void Step(const std::string& label, int i, int n);
  // Item `i` of `n` under `label` is under way, now at `what`: rewrites the line without
  // counting, so that slow items (seconds each) show the program alive.
  void Working(const std::string& label, int i, int n, const std::string& what);

 private:
  // Prints `line` over the previous one (\r, padded to the previous length).
  void Print(const std::string& line);

  int total_;
  int done_ = 0;
  int computed_ = 0;
  std::chrono::steady_clock::time_point start_;
  size_t last_length_ = 0;
};

// `value` formatted with `format` (a double conversion), or "-" when it is null.
std::string NumberOrDash(const nlohmann::json& value, const char* format = "%.2f");

// Writes `report` to PREFIX.md and prints it, with the paths of PREFIX.json and PREFIX.md.
absl::Status WriteReport(const std::string& out_prefix, const std::string& report);

// main() of a benchmark program: --help, parsing, running, and the error line and exit code of
// base/exit_codes.h ("name: usage: ..." or "name: CODE: message").
int CommandMain(const offline::Command& command, int argc, char** argv);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_BENCH_SUPPORT_H_
