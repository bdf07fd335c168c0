// Reading tasks and plans from files and standard input.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "client/cli/input_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kTaskJson[] = R"({
  "tables": [{"name": "t0", "rows": "5000000", "dim": 64, "pooling_factor": 1.5,
              "element_type": "FP16"},
             {"name": "t1", "rows": 200, "dim": 4, "poolingFactor": 40}],
  "topology": {"num_devices": 2, "deviceMemoryGib": 16, "devices_per_host": 1}
})";

constexpr char kPlanJson[] = R"({"tables": [{"table": "t0", "sharding_type": "TABLE_WISE",
  "shards": [{"device": 1, "row_count": "200", "column_count": 4}]}], "cost_ms": 2.5})";

std::string Message(const absl::Status& status) { return std::string(status.message()); }

// A file with `contents` that lives as long as the test.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    char name[] = "/tmp/shardplan-cli-test-XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Standard input reads `contents` while this lives.
class StdinFrom {
 public:
  explicit StdinFrom(const std::string& contents)
      : buffer_(contents), saved_(std::cin.rdbuf(buffer_.rdbuf())) {}
  ~StdinFrom() {
    std::cin.rdbuf(saved_);
    std::cin.clear();
  }

 private:
  std::istringstream buffer_;
  std::streambuf* saved_;
};

TEST(ParseTaskTest, AcceptsBothFieldSpellingsAndInt64Strings) {
  absl::StatusOr<shardplan::v1::Task> task = ParseTask(kTaskJson, "task.json");
  ASSERT_TRUE(task.ok()) << task.status();
  ASSERT_EQ(task->tables_size(), 2);
  EXPECT_EQ(task->tables(0).rows(), 5000000);
  EXPECT_EQ(task->tables(0).pooling_factor(), 1.5);
  EXPECT_EQ(task->tables(0).element_type(), shardplan::v1::FP16);
  EXPECT_EQ(task->tables(1).pooling_factor(), 40);
  EXPECT_EQ(task->topology().device_memory_gib(), 16);
  EXPECT_EQ(task->topology().devices_per_host(), 1);
}

TEST(ParseTaskTest, UnknownFieldsAndBadJsonNameTheSource) {
  const absl::Status misspelt =
      ParseTask(R"({"tables": [{"name": "t0", "rows": 10, "dmi": 4}]})", "task.json").status();
  EXPECT_EQ(misspelt.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(misspelt), StartsWith("task.json: not a shardplan.v1.Task: "));
  EXPECT_THAT(Message(misspelt), HasSubstr("dmi"));

  const absl::Status truncated = ParseTask("{not json", "<stdin>").status();
  EXPECT_EQ(truncated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(truncated), StartsWith("<stdin>: not a shardplan.v1.Task: "));
}

TEST(ParseTaskTest, AFieldGivenTwiceIsRefusedNamingIt) {
  // protobuf's own reader took the last spelling: the task was planned at 50.
  const absl::Status both = ParseTask(R"({"tables": [{"name": "t0", "rows": 10, "dim": 4,
      "pooling_factor": 1, "poolingFactor": 50}]})",
                                      "task.json")
                                .status();
  EXPECT_EQ(both.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(both),
            "task.json: not a shardplan.v1.Task: tables[0].pooling_factor: given twice, as "
            "\"poolingFactor\" and as \"pooling_factor\"");
  const absl::Status twice =
      ParseTask(R"({"batch_size": 8, "batch_size": 16})", "task.json").status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(twice), HasSubstr("batch_size: given twice"));
}

TEST(ParsePlanTest, AcceptsEveryShapeTheToolPrints) {
  const std::string plan = kPlanJson;
  for (const std::string& json :
       {plan, R"({"plan": )" + plan + R"(, "cache_hit": true})",  // PlanResponse
        R"({"plan": )" + plan + "}",                              // EvaluatePlanResponse
        R"({"job_id": "j1", "state": "SUCCEEDED", "result": {"plan": )" + plan + "}}"}) {
    SCOPED_TRACE(json);
    absl::StatusOr<shardplan::v1::Plan> parsed = ParsePlan(json, "plan.json");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ASSERT_EQ(parsed->tables_size(), 1);
    EXPECT_EQ(parsed->tables(0).table(), "t0");
    EXPECT_EQ(parsed->tables(0).shards(0).device(), 1);
    EXPECT_EQ(parsed->tables(0).shards(0).row_count(), 200);
    EXPECT_EQ(parsed->cost_ms(), 2.5);
  }
}

TEST(ParsePlanTest, RejectsAnythingElseWithThePlanParseError) {
  for (const char* json : {R"({"something": "else"})",
                           R"({"job_id": "j1", "state": "RUNNING"})",  // no result yet
                           "[1, 2]"}) {
    SCOPED_TRACE(json);
    const absl::Status status = ParsePlan(json, "plan.json").status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(status), StartsWith("plan.json: not a Plan, PlanResponse, finished "
                                            "JobStatus or TorchRec plan; as a Plan: "));
  }
}

TEST(ParsePlanTest, ATorchRecPlansDataParallelTablesTakeTheirShapeFromTheGivenShapes) {
  const char* json = R"({"plan": {"ebc": {"t0": {"sharding_type": "data_parallel",
      "compute_kernel": "dense", "ranks": [0, 1]}}}})";
  absl::StatusOr<shardplan::v1::Plan> parsed = ParsePlan(json, "plan.json", {{"t0", {200, 8}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->tables(0).shards_size(), 2);
  EXPECT_EQ(parsed->tables(0).shards(1).device(), 1);
  EXPECT_EQ(parsed->tables(0).shards(1).row_count(), 200);
  EXPECT_THAT(Message(ParsePlan(json, "plan.json").status()),
              StartsWith("plan.json: plan.ebc.t0: a data_parallel table without \"shards\""));
}

TEST(ParsePlanTest, ATorchRecPlanGivingAKeyTwiceIsRefusedNamingIt) {
  // nlohmann kept the last "ranks": the table went to rank 1 alone.
  const char* json = R"({"plan": {"ebc": {"t0": {"sharding_type": "data_parallel",
      "compute_kernel": "dense", "ranks": [0, 1], "ranks": [1]}}}})";
  const absl::Status status = ParsePlan(json, "plan.json", {{"t0", {200, 8}}}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status),
              HasSubstr("plan.ebc.t0.ranks: given twice in one object; give each field once"));
}

TEST(ReadInputTest, ReadsAFileWhole) {
  const std::string contents = std::string("line 1\nline 2\0binary", 20);
  TempFile file(contents);
  absl::StatusOr<std::string> read = ReadInput(file.path());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, contents);
}

TEST(ReadInputTest, DashReadsStandardInput) {
  StdinFrom stdin_from("from stdin");
  absl::StatusOr<std::string> read = ReadInput("-");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "from stdin");
}

TEST(ReadInputTest, MissingFileIsInvalidArgumentNamingIt) {
  const absl::Status status = ReadInput("/nonexistent/task.json").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "/nonexistent/task.json: cannot open: No such file or directory");
}

TEST(ReadTaskTest, FromAFileOrStandardInput) {
  TempFile file(kTaskJson);
  absl::StatusOr<shardplan::v1::Task> task = ReadTask(file.path());
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->tables(1).name(), "t1");

  StdinFrom stdin_from(kTaskJson);
  task = ReadTask("-");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->topology().num_devices(), 2);
}

TEST(ReadTaskTest, ParseErrorsNameTheFileOrStdin) {
  TempFile file(R"({"tables": 3})");
  EXPECT_THAT(Message(ReadTask(file.path()).status()),
              StartsWith(file.path() + ": not a shardplan.v1.Task: "));
  StdinFrom stdin_from("{");
  EXPECT_THAT(Message(ReadTask("-").status()), StartsWith("<stdin>: not a shardplan.v1.Task: "));
}

TEST(ReadPlanTest, FromAFile) {
  TempFile file(R"({"plan": )" + std::string(kPlanJson) + "}");
  absl::StatusOr<shardplan::v1::Plan> plan = ReadPlan(file.path());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->tables(0).table(), "t0");
  EXPECT_THAT(Message(ReadPlan("/nonexistent/plan.json").status()),
              StartsWith("/nonexistent/plan.json: cannot open"));
}

}  // namespace
}  // namespace shardplan::cli
