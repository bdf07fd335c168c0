// What the commands share: global options, the plan request built from options, the output
// format and devices per host.

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/command_line.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// An invocation of `plan` with `args` (its options and the global ones mixed, as after the
// command name), global options read; the parse must succeed.
Invocation PlanInvocation(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = PlanRequestFlags();
  for (OptionSpec& flag : PlanOutputFlags()) specs.push_back(std::move(flag));
  for (OptionSpec& flag : GlobalFlags()) specs.push_back(std::move(flag));
  Invocation invocation;
  absl::StatusOr<OptionValues> parsed = ParseOptions(specs, args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (parsed.ok()) invocation.flags = *std::move(parsed);
  const absl::Status global = ReadGlobalOptions(invocation.flags, invocation.global);
  EXPECT_TRUE(global.ok()) << global;
  return invocation;
}

// The usage error ReadGlobalOptions gives for `args`.
absl::Status GlobalOptionsError(const std::vector<std::string>& args) {
  absl::StatusOr<OptionValues> flags = ParseOptions(GlobalFlags(), args);
  EXPECT_TRUE(flags.ok()) << flags.status();
  GlobalOptions global;
  absl::Status status = ReadGlobalOptions(flags.ok() ? *flags : OptionValues(), global);
  EXPECT_TRUE(IsUsageError(status)) << status;
  return status;
}

absl::Status BuildError(const std::vector<std::string>& args) {
  absl::StatusOr<shardplan::v1::PlanRequest> request =
      BuildPlanRequest(PlanInvocation(args), shardplan::v1::Task());
  EXPECT_TRUE(IsUsageError(request.status())) << request.status();
  return request.status();
}

class ServerFromEnvironment : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("SHARDPLAN_SERVER")) saved_ = value;
    unsetenv("SHARDPLAN_SERVER");
  }
  void TearDown() override {
    if (saved_.has_value()) {
      setenv("SHARDPLAN_SERVER", saved_->c_str(), 1);
    } else {
      unsetenv("SHARDPLAN_SERVER");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST_F(ServerFromEnvironment, DefaultsThenEnvironmentThenFlag) {
  EXPECT_EQ(PlanInvocation({}).global.server, "127.0.0.1:50051");
  setenv("SHARDPLAN_SERVER", "planner:7000", 1);
  EXPECT_EQ(PlanInvocation({}).global.server, "planner:7000");
  EXPECT_EQ(PlanInvocation({"--server", "other:1"}).global.server, "other:1");
  setenv("SHARDPLAN_SERVER", "", 1);  // empty means unset
  EXPECT_EQ(PlanInvocation({}).global.server, "127.0.0.1:50051");
}

TEST(ReadGlobalOptionsTest, ReadsEveryOption) {
  const GlobalOptions defaults = PlanInvocation({}).global;
  EXPECT_FALSE(defaults.timeout.has_value());
  EXPECT_FALSE(defaults.json);
  EXPECT_EQ(defaults.max_attempts, 4);

  const GlobalOptions global =
      PlanInvocation({"--timeout", "2.5", "--json", "--max-attempts=1"}).global;
  EXPECT_EQ(global.timeout, absl::Milliseconds(2500));
  EXPECT_TRUE(global.json);
  EXPECT_EQ(global.max_attempts, 1);
  EXPECT_EQ(PlanInvocation({"--max-attempts=0"}).global.max_attempts, 0);  // until --timeout
}

TEST(ReadGlobalOptionsTest, RejectsBadValuesByOption) {
  EXPECT_EQ(GlobalOptionsError({"--server="}).message(), "--server is empty");
  for (const char* timeout : {"0", "-1", "soon", "nan"}) {
    EXPECT_EQ(GlobalOptionsError({"--timeout", timeout}).message(),
              std::string("--timeout must be a positive number of seconds, got '") + timeout + "'");
  }
  for (const char* attempts : {"-1", "1.5", "many"}) {
    EXPECT_EQ(GlobalOptionsError({"--max-attempts", attempts}).message(),
              std::string("--max-attempts must be an integer >= 0, got '") + attempts + "'");
  }
}

TEST(BuildPlanRequestTest, CarriesTheTaskAndEveryOption) {
  shardplan::v1::Task task;
  task.add_tables()->set_name("t0");
  absl::StatusOr<shardplan::v1::PlanRequest> request =
      BuildPlanRequest(PlanInvocation({"--algorithm", "random", "--param", "respect_memory=false",
                                       "--param", "note=a=b", "--seed", "18446744073709551615",
                                       "--model", "analytic@1", "--hardware", "rtx2080ti",
                                       "--no-cache"}),
                       task);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->task().tables(0).name(), "t0");
  EXPECT_EQ(request->algorithm(), "random");
  EXPECT_THAT(request->parameters(),
              UnorderedElementsAre(Pair("respect_memory", "false"), Pair("note", "a=b")));
  EXPECT_EQ(request->seed(), 18446744073709551615u);
  EXPECT_EQ(request->model(), "analytic@1");
  EXPECT_EQ(request->task().topology().hardware(), "rtx2080ti");
  EXPECT_TRUE(request->bypass_cache());
}

TEST(BuildPlanRequestTest, LeavesServerDefaultsAlone) {
  absl::StatusOr<shardplan::v1::PlanRequest> request =
      BuildPlanRequest(PlanInvocation({}), shardplan::v1::Task());
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->algorithm(), "");
  EXPECT_TRUE(request->parameters().empty());
  EXPECT_EQ(request->seed(), 0u);
  EXPECT_EQ(request->model(), "");
  EXPECT_EQ(request->task().topology().hardware(), "");  // the task file's, if any
  EXPECT_FALSE(request->bypass_cache());
}

TEST(BuildPlanRequestTest, RejectsMalformedValuesByOption) {
  EXPECT_EQ(BuildError({"--param", "novalue"}).message(), "--param wants KEY=VALUE, got 'novalue'");
  EXPECT_EQ(BuildError({"--hardware", ""}).message(), "--hardware wants a device kind, got ''");
  EXPECT_EQ(BuildError({"--param", "=1"}).message(), "--param wants KEY=VALUE, got '=1'");
  EXPECT_EQ(BuildError({"--seed", "-1"}).message(),
            "--seed must be a non-negative integer, got '-1'");
  for (const char* model : {"@1", "analytic@", ""}) {
    EXPECT_EQ(BuildError({"--model", model}).message(),
              std::string("--model wants NAME or NAME@VERSION, got '") + model + "'");
  }
}

TEST(ResolveOutputFormatTest, FormatAndJsonFlags) {
  EXPECT_EQ(*ResolveOutputFormat(PlanInvocation({})), OutputFormat::kText);
  EXPECT_EQ(*ResolveOutputFormat(PlanInvocation({"--json"})), OutputFormat::kJson);
  EXPECT_EQ(*ResolveOutputFormat(PlanInvocation({"--format", "json"})), OutputFormat::kJson);
  EXPECT_EQ(*ResolveOutputFormat(PlanInvocation({"--json", "--format=json"})), OutputFormat::kJson);
  EXPECT_EQ(*ResolveOutputFormat(PlanInvocation({"--format", "torchrec"})),
            OutputFormat::kTorchRec);

  const absl::Status conflict =
      ResolveOutputFormat(PlanInvocation({"--json", "--format", "torchrec"})).status();
  EXPECT_TRUE(IsUsageError(conflict));
  EXPECT_EQ(conflict.message(), "--json conflicts with --format torchrec");
  const absl::Status unknown = ResolveOutputFormat(PlanInvocation({"--format", "yaml"})).status();
  EXPECT_TRUE(IsUsageError(unknown));
  EXPECT_EQ(unknown.message(), "--format must be text, json or torchrec, got 'yaml'");
}

}  // namespace
}  // namespace shardplan::cli
