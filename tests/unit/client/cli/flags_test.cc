// ParseFlags, ParsedFlags and FormatFlagHelp: the CLI's option syntax.

#include <string>
#include <vector>

#include "client/cli/exit_codes.h"
#include "client/cli/flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<FlagSpec> Specs() {
  return {
      FlagSpec::Value("algorithm", "NAME", "planning algorithm"),
      FlagSpec::Value("param", "KEY=VALUE", "algorithm parameter").Repeatable(),
      FlagSpec::Value("output", "FILE", "write to FILE", 'o'),
      FlagSpec::Switch("json", "print JSON"),
      FlagSpec::Switch("help", "show help", 'h'),
  };
}

// Parses `args` as a command's options and arguments; the parse must succeed.
ParsedFlags Parse(const std::vector<std::string>& args) {
  ParsedFlags flags;
  absl::StatusOr<size_t> end = ParseFlags(Specs(), args, /*stop_at_positional=*/false, flags);
  EXPECT_TRUE(end.ok()) << end.status();
  if (end.ok()) {
    EXPECT_EQ(*end, args.size());
  }
  return flags;
}

// The usage error ParseFlags gives for `args`.
absl::Status ParseError(const std::vector<std::string>& args) {
  ParsedFlags flags;
  absl::StatusOr<size_t> end = ParseFlags(Specs(), args, /*stop_at_positional=*/false, flags);
  EXPECT_FALSE(end.ok());
  if (end.ok()) return absl::OkStatus();
  EXPECT_TRUE(IsUsageError(end.status())) << end.status();
  return end.status();
}

TEST(ParseFlagsTest, ValuesSeparateInlineAndShort) {
  const ParsedFlags flags =
      Parse({"--algorithm", "random", "task.json", "--output=plan.json", "-h", "--json"});
  EXPECT_EQ(flags.Get("algorithm"), "random");
  EXPECT_EQ(flags.Get("output"), "plan.json");
  EXPECT_TRUE(flags.Has("help"));
  EXPECT_TRUE(flags.Has("json"));
  EXPECT_THAT(flags.positionals(), ElementsAre("task.json"));

  EXPECT_EQ(Parse({"-o", "x.json"}).Get("output"), "x.json");
}

TEST(ParseFlagsTest, AbsentOptionsReadTheirFallback) {
  const ParsedFlags flags = Parse({"task.json"});
  EXPECT_FALSE(flags.Has("output"));
  EXPECT_EQ(flags.Get("output"), "");
  EXPECT_EQ(flags.Get("output", "-"), "-");
  EXPECT_THAT(flags.GetAll("param"), IsEmpty());
}

TEST(ParseFlagsTest, RepeatableOptionsKeepEveryValueOthersTheLast) {
  const ParsedFlags flags =
      Parse({"--param", "a=1", "--param=b=2", "--algorithm", "x", "--algorithm", "y"});
  EXPECT_THAT(flags.GetAll("param"), ElementsAre("a=1", "b=2"));  // split at the first '='
  EXPECT_EQ(flags.Get("algorithm"), "y");
}

TEST(ParseFlagsTest, TheWordAfterAValueOptionIsItsValue) {
  EXPECT_EQ(Parse({"--algorithm", "--json"}).Get("algorithm"), "--json");
  EXPECT_EQ(Parse({"--output="}).Get("output"), "");
}

TEST(ParseFlagsTest, DashIsAnArgumentAndDoubleDashEndsTheOptions) {
  const ParsedFlags flags = Parse({"-", "--", "--json", "-o"});
  EXPECT_FALSE(flags.Has("json"));
  EXPECT_FALSE(flags.Has("output"));
  EXPECT_THAT(flags.positionals(), ElementsAre("-", "--json", "-o"));
}

TEST(ParseFlagsTest, StopsAtTheFirstArgumentWhenAsked) {
  ParsedFlags flags;
  const std::vector<std::string> args = {"--json", "plan", "--algorithm", "x"};
  absl::StatusOr<size_t> command = ParseFlags(Specs(), args, /*stop_at_positional=*/true, flags);
  ASSERT_TRUE(command.ok()) << command.status();
  EXPECT_EQ(*command, 1u);
  EXPECT_TRUE(flags.Has("json"));
  EXPECT_FALSE(flags.Has("algorithm"));
  EXPECT_THAT(flags.positionals(), IsEmpty());

  ParsedFlags after_dashes;
  command = ParseFlags(Specs(), {"--", "plan"}, /*stop_at_positional=*/true, after_dashes);
  ASSERT_TRUE(command.ok()) << command.status();
  EXPECT_EQ(*command, 1u);

  ParsedFlags only_options;
  command = ParseFlags(Specs(), {"--help"}, /*stop_at_positional=*/true, only_options);
  ASSERT_TRUE(command.ok()) << command.status();
  EXPECT_EQ(*command, 1u);  // past the end: no command
}

TEST(ParseFlagsTest, ErrorsNameTheOption) {
  EXPECT_EQ(ParseError({"--bogus"}).message(), "unknown option --bogus");
  EXPECT_EQ(ParseError({"-x"}).message(), "unknown option -x");
  EXPECT_EQ(ParseError({"-oplan.json"}).message(), "unknown option -oplan.json");
  EXPECT_EQ(ParseError({"--json=yes"}).message(), "option --json takes no value");
  EXPECT_EQ(ParseError({"task.json", "--algorithm"}).message(),
            "option --algorithm needs a value (NAME)");
  EXPECT_EQ(ParseError({"-o"}).message(), "option --output needs a value (FILE)");
}

TEST(FormatFlagHelpTest, AlignsOneLinePerOption) {
  EXPECT_EQ(FormatFlagHelp(Specs()),
            "      --algorithm NAME   planning algorithm\n"
            "      --param KEY=VALUE  algorithm parameter (repeatable)\n"
            "  -o, --output FILE      write to FILE\n"
            "      --json             print JSON\n"
            "  -h, --help             show help\n");
}

}  // namespace
}  // namespace shardplan::cli
