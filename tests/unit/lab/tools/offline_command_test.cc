// ParseArgs: the options of an offline command (base/command_line.h under the offline rules).
#include "absl/status/status.h"
#include "base/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lab/tools/offline_command.h"

namespace shardplan::offline {
namespace {

using ::testing::HasSubstr;

Command Sample() {
  Command command;
  command.group = "data";
  command.name = "collect";
  command.flags = {{"samples", "N", "", "", true},
                   {"seed", "S", "", "7"},
                   {"noise", "X", "", "0"},
                   {"dry-run", "", "", ""}};
  return command;
}

TEST(CollectionOfflineArgs, ParsesBothSpellingsAndDefaults) {
  absl::StatusOr<OptionValues> args =
      ParseArgs(Sample(), {"--samples", "12", "--noise=0.5", "--dry-run"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args->GetInt("samples"), 12);
  EXPECT_EQ(*args->GetUint("seed"), 7u);
  EXPECT_FALSE(args->Has("seed"));
  EXPECT_DOUBLE_EQ(*args->GetDouble("noise"), 0.5);
  EXPECT_TRUE(args->Has("dry-run"));
}

void ExpectUsage(const std::vector<std::string>& argv, const std::string& message) {
  absl::StatusOr<OptionValues> args = ParseArgs(Sample(), argv);
  ASSERT_FALSE(args.ok());
  EXPECT_TRUE(IsUsageError(args.status()));
  EXPECT_EQ(ExitCodeFor(args.status()), kExitUsage);
  EXPECT_THAT(args.status().message(), HasSubstr(message));
}

TEST(CollectionOfflineArgs, MistakesAreUsageErrors) {
  ExpectUsage({}, "--samples is required");
  ExpectUsage({"--samples", "1", "--samples", "2"}, "--samples given twice");
  ExpectUsage({"--samples"}, "--samples needs a value");
  ExpectUsage({"--samples", "1", "--bogus", "2"}, "unknown option --bogus");
  ExpectUsage({"--samples", "1", "stray"}, "unexpected argument 'stray'");
  ExpectUsage({"--samples", "1", "--dry-run=yes"}, "--dry-run takes no value");
}

TEST(CollectionOfflineArgs, TypedGettersNameTheOption) {
  absl::StatusOr<OptionValues> args =
      ParseArgs(Sample(), {"--samples", "x", "--seed", "-1", "--noise", "inf"});
  ASSERT_TRUE(args.ok());
  EXPECT_THAT(args->GetInt("samples").status().message(), HasSubstr("--samples 'x'"));
  EXPECT_TRUE(IsUsageError(args->GetUint("seed").status()));
  EXPECT_TRUE(IsUsageError(args->GetDouble("noise").status()));
}

}  // namespace
}  // namespace shardplan::offline
