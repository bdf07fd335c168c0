// shardplan tasks generate: planner tasks as the reference's gen_tasks.py draws them.
#include <filesystem>
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "lab/data/generators.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"
#include "wire/json_io.h"

namespace shardplan::offline {
namespace {

absl::Status RunGenerate(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t devices, args.GetInt("devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_dim, args.GetInt("max-dim"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t count, args.GetInt("count"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  if (devices != 4 && devices != 8) return UsageError("--devices must be 4 or 8");
  if (max_dim < 4 || max_dim > 4096 || max_dim % 4 != 0) {
    return UsageError("--max-dim must be a multiple of 4 in [4, 4096]");
  }
  if (count < 0) return UsageError("--count is negative");
  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));

  TaskGenOptions options;
  options.num_devices = static_cast<int32_t>(devices);
  options.max_dim = static_cast<int32_t>(max_dim);
  const std::string out = args.Get("out");
  const bool jsonl = absl::EndsWith(out, ".jsonl");
  std::string lines;
  for (int64_t i = 0; i < count; ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(const Task task,
                               GenerateTask(pool.pool, options, seed, static_cast<uint64_t>(i)));
    if (jsonl) {
      absl::StrAppend(&lines, wire::TaskToJson(task), "\n");
    } else {
      const std::string path =
          (std::filesystem::path(out) / absl::StrFormat("task_%04d.json", i)).string();
      SHARDPLAN_RETURN_IF_ERROR(WriteTextFile(path, wire::TaskToJson(task, /*pretty=*/true)));
    }
  }
  if (jsonl) SHARDPLAN_RETURN_IF_ERROR(WriteTextFile(out, lines));
  std::cout << out << ": " << count << " tasks for " << devices << " devices (max dim " << max_dim
            << ", seed " << seed << ", pool " << pool.path << ")\n";
  return absl::OkStatus();
}

}  // namespace

Command TasksGenerateCommand() {
  return Command{
      .group = "tasks",
      .name = "generate",
      .summary = "Generate planning tasks from a table pool (the reference's gen_tasks)",
      .description =
          "Task i is drawn from (seed, i): T tables (10..59 for 4 devices, 20..119 for 8) with\n"
          "pool ids drawn with replacement and dims from the grid up to --max-dim, resampled "
          "until\n"
          "the total memory fits (4 GB devices, total under devices x 4 GB - 1 GB). Output: "
          "planner\n"
          "Task JSON (examples/README.md), one file per task (task_0000.json ...) in the folder "
          "--out, "
          "or\n"
          "one task per line when --out ends in .jsonl.\n",
      .flags =
          {
              {"devices", "4|8", "devices per task", "", true},
              {"max-dim", "D", "largest dim of the grid", "128"},
              {"count", "N", "number of tasks", "", true},
              {"seed", "S", "seed", "0"},
              {"pool", "FILE", "table pool", kDefaultPool},
              {"out", "DIR|FILE.jsonl", "output folder, or a JSONL file", "", true},
          },
      .run = RunGenerate,
  };
}

}  // namespace shardplan::offline
