// CliMain: command dispatch, help and usage errors; nothing here reaches a server.

#include "client/cli/cli_main.h"

#include <string>
#include <vector>

#include "base/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Result RunCli(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Result result;
  result.exit_code = CliMain(args);
  result.out = ::testing::internal::GetCapturedStdout();
  result.err = ::testing::internal::GetCapturedStderr();
  return result;
}

TEST(CliMainTest, HelpForTheToolAndForACommand) {
  const Result tool = RunCli({"--help"});
  EXPECT_EQ(tool.exit_code, kExitOk);
  EXPECT_THAT(tool.out, StartsWith("shardplan: client of the shardplan"));
  EXPECT_THAT(tool.out, HasSubstr("Exit codes:"));
  EXPECT_EQ(RunCli({"help"}).out, tool.out);

  const Result plan = RunCli({"plan", "--help"});
  EXPECT_EQ(plan.exit_code, kExitOk);
  EXPECT_THAT(plan.out, StartsWith("Usage: shardplan plan [options] TASK\n"));
  EXPECT_EQ(RunCli({"help", "plan"}).out, plan.out);
  EXPECT_EQ(RunCli({"-h", "plan"}).out, plan.out);  // a global --help before the command
  EXPECT_EQ(RunCli({"plan", "-h", "--bogus-later"}).exit_code, kExitUsage);  // options still parse
}

TEST(CliMainTest, UsageErrorsExit2AndPointAtHelp) {
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{}, "shardplan: usage: no command given (see 'shardplan --help')\n"},
      {{"frobnicate"}, "shardplan: usage: unknown command 'frobnicate' (see 'shardplan --help')\n"},
      {{"help", "frobnicate"},
       "shardplan: usage: unknown command 'frobnicate' (see 'shardplan --help')\n"},
      {{"--bogus", "plan"}, "shardplan: usage: unknown option --bogus (see 'shardplan --help')\n"},
      {{"plan"},
       "shardplan: usage: plan expects TASK, got 0 arguments (see 'shardplan plan --help')\n"},
      {{"evaluate", "-", "-", "extra"},
       "shardplan: usage: evaluate expects TASK PLAN, got 3 arguments "
       "(see 'shardplan evaluate --help')\n"},
      {{"models", "x"},
       "shardplan: usage: models: unknown subcommand \"x\"; expected reload "
       "(see 'shardplan models --help')\n"},
      {{"models", "reload", "x"},
       "shardplan: usage: models expects [reload], got 2 arguments "
       "(see 'shardplan models --help')\n"},
      {{"get", "job", "--format", "yaml"},
       "shardplan: usage: --format must be text, json or torchrec, got 'yaml' "
       "(see 'shardplan get --help')\n"},
      {{"--timeout", "0", "health"},
       "shardplan: usage: --timeout must be a positive number of seconds, got '0' "
       "(see 'shardplan health --help')\n"},
      {{"health", "--max-attempts", "-1"},
       "shardplan: usage: --max-attempts must be an integer >= 0, got '-1' "
       "(see 'shardplan health --help')\n"},
      {{"evaluate", "-", "-"},
       "shardplan: usage: TASK and PLAN cannot both be standard input "
       "(see 'shardplan evaluate --help')\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    const Result result = RunCli(c.args);
    EXPECT_EQ(result.exit_code, kExitUsage);
    EXPECT_THAT(result.err, testing::EndsWith(c.message));
  }
}

TEST(CliMainTest, UnreadableTaskExits3BeforeAnyCall) {
  // --max-attempts 1 and an unroutable server: a call would fail UNAVAILABLE (exit 6) instead.
  const Result result =
      RunCli({"plan", "/nonexistent/task.json", "--server", "127.0.0.1:1", "--max-attempts", "1"});
  EXPECT_EQ(result.exit_code, kExitInvalidArgument);
  EXPECT_EQ(result.err,
            "shardplan: INVALID_ARGUMENT: /nonexistent/task.json: cannot open: No such file or "
            "directory\n");
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace shardplan::cli
