// Runs the shardplan-offline and shardplan executables on tiny inputs: argument handling, exit
// codes and the files each command writes. Sample counts stay in single digits.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lab/collection/cost_record.h"
#include "lab/data/table_pool.h"
#include "nlohmann/json.hpp"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using testing_files::ReadFile;

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

ProcessResult Execute(const std::string& command) {
  ProcessResult run;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

class CollectionOfflineTool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           absl::StrCat("offline_tool_test_", ::getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    TablePool pool;
    pool.source = "offline_tool_test";
    for (int i = 0; i < 12; ++i) {
      Table table;
      table.name = absl::StrCat("t", i);
      table.rows = 1000 * (i + 1);
      table.pooling_factor = 1.0 + i;
      table.access_bins.assign(kNumAccessBins, 0.0);
      table.access_bins[0] = 0.5;
      table.access_bins[i % 4 + 1] = 0.5;
      pool.tables.push_back(table);
    }
    pool_ = Path("pool.json");
    ASSERT_TRUE(SaveTablePool(pool, pool_).ok());
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  ProcessResult Offline(const std::string& args) const {
    return Execute(absl::StrCat(SHARDPLAN_OFFLINE_PATH, " ", args));
  }

  std::filesystem::path dir_;
  std::string pool_;
};

TEST_F(CollectionOfflineTool, HelpEverywhereExitsZero) {
  for (const char* args :
       {"--help", "data --help", "tables --help", "tasks --help", "data collect --help",
        "data observations --help", "tables profile --help", "tables generate-pool --help",
        "tasks generate --help"}) {
    const ProcessResult run = Offline(args);
    EXPECT_EQ(run.exit_code, 0) << args << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr("Usage: shardplan")) << args;
  }
}

TEST_F(CollectionOfflineTool, UsageMistakesExitTwo) {
  for (const char* args :
       {"", "bogus", "data", "data bogus", "data collect",
        "data collect --backend sim --kind compute --samples 1",
        "data collect --backend sim --kind compute --samples x --out f",
        "data collect --backend sim --kind io --samples 1 --out f",
        "data collect --backend cpu --kind comm --samples 1 --out f",
        "data collect --backend tpu --kind compute --samples 1 --out f", "data collect --nope 1",
        "tasks generate --devices 5 --count 1 --out d",
        "tables generate-pool --shape zipf --out p.json",
        "tables generate-pool --max-rows 50 --out p.json",
        "data collect --backend sim --kind comm --samples 1 --max-dims 6 --out f",
        "data collect --backend sim --kind compute --samples 1 --max-dims 8 --out f"}) {
    const ProcessResult run = Offline(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr("shardplan: usage:")) << args;
  }
}

TEST_F(CollectionOfflineTool, ClientDispatchesOfflineCommands) {
  const ProcessResult help = Execute(absl::StrCat(SHARDPLAN_CLIENT_PATH, " --help"));
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.output, HasSubstr("tables"));
  EXPECT_THAT(help.output, HasSubstr("data "));
  const ProcessResult data = Execute(absl::StrCat(SHARDPLAN_CLIENT_PATH, " data collect --help"));
  EXPECT_EQ(data.exit_code, 0) << data.output;
  EXPECT_THAT(data.output, HasSubstr("Usage: shardplan data collect"));
  const ProcessResult help_data = Execute(absl::StrCat(SHARDPLAN_CLIENT_PATH, " help data"));
  EXPECT_EQ(help_data.exit_code, 0) << help_data.output;
  EXPECT_THAT(help_data.output, HasSubstr("data observations"));
  const ProcessResult bad =
      Execute(absl::StrCat(SHARDPLAN_CLIENT_PATH, " tasks generate --bogus 1"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

TEST_F(CollectionOfflineTool, ClientWithoutTheOfflineToolExitsTwo) {
  // A lone copy of the client, with nothing on PATH.
  const std::string lonely = Path("shardplan");
  std::filesystem::copy_file(SHARDPLAN_CLIENT_PATH, lonely);
  std::filesystem::permissions(lonely, std::filesystem::perms::owner_all);
  const ProcessResult run =
      Execute(absl::StrCat("PATH=", dir_.string(), "/nothing ", lonely, " data collect"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("shardplan-offline"));
}

TEST_F(CollectionOfflineTool, SimCollectWritesResumesAndRefusesAnotherRun) {
  const std::string out = Path("compute.jsonl");
  const std::string base = absl::StrCat("data collect --backend sim --kind compute --pool ", pool_,
                                        " --out ", out, " --batch-size 1024");
  ProcessResult run = Offline(base + " --samples 3");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  run = Offline(base + " --samples 5");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("5/5 samples (2 collected now, 3 already there)"));
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 5u);
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(lines[i]);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->id, static_cast<int64_t>(i));
    EXPECT_EQ(record->backend, "sim");
    EXPECT_EQ(record->hardware_profile, "sim-rtx2080ti");
    EXPECT_EQ(record->batch_size, 1024);
    EXPECT_EQ(record->pool, pool_);
    EXPECT_EQ(record->pool_sha256.size(), 64u);
    EXPECT_FALSE(record->tables.empty());
    EXPECT_GT(record->ms, 0.0);
  }
  run = Offline(base + " --samples 5 --seed 9");
  EXPECT_EQ(run.exit_code, 4) << run.output;
  EXPECT_THAT(run.output, HasSubstr("seed is 0 in the file but 9 in this run"));
}

TEST_F(CollectionOfflineTool, SigintStopsBetweenRecordsAndTheRunResumes) {
  const std::string out = Path("interrupted.jsonl");
  const std::vector<std::string> args = {SHARDPLAN_OFFLINE_PATH,
                                         "data",
                                         "collect",
                                         "--backend",
                                         "sim",
                                         "--kind",
                                         "comm",
                                         "--devices",
                                         "8",
                                         "--samples",
                                         "100000000",
                                         "--pool",
                                         pool_,
                                         "--out",
                                         out};
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::freopen("/dev/null", "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // The handler is installed before the file is created: wait for records, then interrupt.
  // (Bounded, so a child that fails to start fails the test instead of hanging it.)
  for (int waited_ms = 0; !std::filesystem::exists(out) || std::filesystem::file_size(out) == 0;
       ++waited_ms) {
    if (waited_ms == 60000) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      FAIL() << "shardplan-offline wrote no record within a minute";
    }
    ::usleep(1000);
  }
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 9);

  const std::string text = ReadFile(out);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(lines[i]);
    ASSERT_TRUE(record.ok()) << "line " << i + 1 << ": " << record.status();
    EXPECT_EQ(record->id, static_cast<int64_t>(i));
  }
  const ProcessResult resumed =
      Offline(absl::StrCat("data collect --backend sim --kind comm --devices 8 --samples ",
                           lines.size() + 3, " --pool ", pool_, " --out ", out));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr(absl::StrCat("(3 collected now, ", lines.size())));
  EXPECT_EQ(Lines(ReadFile(out)).size(), lines.size() + 3);
}

TEST_F(CollectionOfflineTool, SimCommRecordsEveryDevice) {
  const std::string out = Path("comm_8.jsonl");
  const ProcessResult run = Offline(
      absl::StrCat("data collect --backend sim --kind comm --devices 8 ", "--samples 2 --pool ",
                   pool_, " --out ", out, " --profile h100-sxm --noise-sigma 0.05"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 2u);
  absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(lines[1]);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->num_devices, 8);
  EXPECT_EQ(record->hardware_profile, "sim-h100-sxm");
  EXPECT_EQ(record->forward_ms.size(), 8u);
  EXPECT_EQ(record->backward_ms.size(), 8u);
}

TEST_F(CollectionOfflineTool, UnknownSimProfileIsNotFound) {
  const ProcessResult run =
      Offline(absl::StrCat("data collect --backend sim --kind compute --samples 1 ",
                           "--profile nope --pool ", pool_, " --out ", Path("x")));
  EXPECT_EQ(run.exit_code, 5) << run.output;
}

TEST_F(CollectionOfflineTool, CpuCollectMeasuresCompute) {
  const std::string out = Path("cpu.jsonl");
  const ProcessResult run =
      Offline(absl::StrCat("data collect --backend cpu --kind compute --samples 2 ",
                           "--batch-size 32 --pool ", pool_, " --out ", out));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 2u);
  absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(lines[0]);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->backend, "cpu");
  EXPECT_EQ(record->batch_size, 32);
}

TEST_F(CollectionOfflineTool, TasksGenerateWritesFilesOrJsonl) {
  ProcessResult run =
      Offline(absl::StrCat("tasks generate --devices 4 --count 2 --max-dim 32 --pool ", pool_,
                           " --out ", Path("tasks")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json task = nlohmann::json::parse(ReadFile(Path("tasks/task_0001.json")));
  EXPECT_GE(task["tables"].size(), 10u);
  EXPECT_LE(task["tables"].size(), 59u);
  for (const auto& table : task["tables"]) EXPECT_LE(table["dim"].get<int>(), 32);

  run = Offline(absl::StrCat("tasks generate --devices 8 --count 3 --seed 4 --pool ", pool_,
                             " --out ", Path("tasks.jsonl")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> lines = Lines(ReadFile(Path("tasks.jsonl")));
  ASSERT_EQ(lines.size(), 3u);
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_GE(first["tables"].size(), 20u);
}

// The default pool is found from any working directory (it ships in the source tree), and the
// tasks name it as given.
TEST_F(CollectionOfflineTool, TasksGenerateWorksOutsideTheRepository) {
  const ProcessResult run = Execute(
      absl::StrCat("cd ", dir_.string(), " && ", SHARDPLAN_OFFLINE_PATH,
                   " tasks generate --devices 4 --count 1 --out ", Path("elsewhere.jsonl")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_FALSE(ReadFile(Path("elsewhere.jsonl")).empty());
  const ProcessResult missing = Execute(absl::StrCat(
      "cd ", dir_.string(), " && ", SHARDPLAN_OFFLINE_PATH,
      " tasks generate --devices 4 --count 1 --pool no/such/pool.json --out ", Path("x.jsonl")));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.output, HasSubstr("no/such/pool.json"));
}

TEST_F(CollectionOfflineTool, PolicyTrainAutoShardWritesABundleAndResumes) {
  const std::string common = absl::StrCat(
      "policy train-autoshard --tasks 4 --total-steps 1600 --checkpoint-every 1 --pool ", pool_,
      " --models-dir ", Path("models"), " --checkpoint ", Path("autoshard.checkpoint"));
  ProcessResult run = Offline(common);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("update 2/2"));
  const nlohmann::json manifest =
      nlohmann::json::parse(ReadFile(Path("models/autoshard-sim-rtx2080ti/1/manifest.json")));
  EXPECT_EQ(manifest["kind"], "policy");
  EXPECT_EQ(Lines(ReadFile(Path("autoshard.checkpoint.curve.csv"))).size(), 3u);  // header + 2

  // A second run would overwrite the checkpoint: refused; --resume of the finished run writes
  // the same weights again.
  EXPECT_EQ(Offline(absl::StrCat(common, " --version 2")).exit_code, 2);
  run = Offline(absl::StrCat(common, " --version 2 --resume"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(ReadFile(Path("models/autoshard-sim-rtx2080ti/2/policy.weights")),
            ReadFile(Path("models/autoshard-sim-rtx2080ti/1/policy.weights")));
  EXPECT_EQ(Offline(absl::StrCat(common, " --version 3 --resume --drop-feature colour")).exit_code,
            2);
}

TEST_F(CollectionOfflineTool, TablesProfileReadsTextLookups) {
  std::ofstream(Path("lookups.txt")) << "table user_id\noffsets 0 2 3\nindices 5 5 150\n";
  ProcessResult run = Offline(absl::StrCat("tables profile --input ", Path("lookups.txt"),
                                           " --out ", Path("profiled.json")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  absl::StatusOr<TablePool> pool = LoadTablePool(Path("profiled.json"));
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_EQ(pool->tables.size(), 1u);
  EXPECT_EQ(pool->tables[0].rows, 151);
  EXPECT_DOUBLE_EQ(pool->tables[0].pooling_factor, 1.5);

  run = Offline(absl::StrCat("tables profile --format binary --input ", Path("lookups.txt"),
                             " --out ", Path("other.json")));
  EXPECT_EQ(run.exit_code, 3) << run.output;
}

TEST_F(CollectionOfflineTool, TablesGeneratePoolDrawsACoveragePool) {
  const ProcessResult run =
      Offline(absl::StrCat("tables generate-pool --seed 5 --tables 40 --shape log-uniform ",
                           "--max-rows 100000 --out ", Path("coverage.json")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("shape log-uniform"));
  absl::StatusOr<TablePool> pool = LoadTablePool(Path("coverage.json"));
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_EQ(pool->tables.size(), 40u);
  for (const Table& table : pool->tables) EXPECT_LE(table.rows, 100000);
  EXPECT_THAT(testing_files::ReadFile(Path("coverage.fit.json")), HasSubstr("log-uniform"));
}

TEST_F(CollectionOfflineTool, SimObservationsWriteThreeDatasets) {
  const ProcessResult run = Offline(
      absl::StrCat("data observations --backend sim --combinations 2 ",
                   "--placements 3 --batch-size 4096 --pool ", pool_, " --out ", Path("obs")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json first = nlohmann::json::parse(ReadFile(Path("obs/observation1.json")));
  EXPECT_EQ(first["tables"].size(), 4u);
  const nlohmann::json second = nlohmann::json::parse(ReadFile(Path("obs/observation2.json")));
  EXPECT_EQ(second["combinations"].size(), 2u);
  const nlohmann::json third = nlohmann::json::parse(ReadFile(Path("obs/observation3.json")));
  ASSERT_EQ(third["device_counts"].size(), 2u);
  EXPECT_EQ(third["device_counts"][1]["num_devices"], 8);
  EXPECT_EQ(third["device_counts"][1]["points"].size(), 3u);
}

}  // namespace
}  // namespace shardplan
