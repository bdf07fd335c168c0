// ParseOptions: the option syntax and the usage errors of every program.

#include "base/command_line.h"

#include <string>
#include <vector>

#include "base/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<OptionSpec> Specs() {
  return {
      OptionSpec::Value("algorithm", "NAME", "planning algorithm"),
      OptionSpec::Value("param", "KEY=VALUE", "algorithm parameter").Repeatable(),
      OptionSpec::Value("output", "FILE", "write to FILE", 'o'),
      OptionSpec::Switch("json", "print JSON"),
      OptionSpec::Switch("help", "show help", 'h'),
  };
}

// Parses `args` as a command's options and arguments; the parse must succeed.
OptionValues Parse(const std::vector<std::string>& args) {
  absl::StatusOr<OptionValues> values = ParseOptions(Specs(), args);
  EXPECT_TRUE(values.ok()) << values.status();
  return values.ok() ? *values : OptionValues();
}

// The usage error ParseOptions gives for `args` under `rules`.
absl::Status ParseError(const std::vector<std::string>& args, const ParseRules& rules = {},
                        const std::vector<OptionSpec>& specs = Specs()) {
  absl::StatusOr<OptionValues> values = ParseOptions(specs, args, rules);
  EXPECT_FALSE(values.ok());
  if (values.ok()) return absl::OkStatus();
  EXPECT_TRUE(IsUsageError(values.status())) << values.status();
  return values.status();
}

TEST(ParseOptionsTest, ValuesSeparateInlineAndShort) {
  const OptionValues values =
      Parse({"--algorithm", "random", "task.json", "--output=plan.json", "-h", "--json"});
  EXPECT_EQ(values.Get("algorithm"), "random");
  EXPECT_EQ(values.Get("output"), "plan.json");
  EXPECT_TRUE(values.Has("help"));
  EXPECT_TRUE(values.Has("json"));
  EXPECT_THAT(values.positionals(), ElementsAre("task.json"));

  EXPECT_EQ(Parse({"-o", "x.json"}).Get("output"), "x.json");
  EXPECT_EQ(Parse({"-ox.json"}).Get("output"), "x.json");  // getopt's attached short value
}

TEST(ParseOptionsTest, AbsentOptionsReadTheirFallback) {
  const OptionValues values = Parse({"task.json"});
  EXPECT_FALSE(values.Has("output"));
  EXPECT_EQ(values.Get("output"), "");
  EXPECT_EQ(values.Get("output", "-"), "-");
  EXPECT_THAT(values.GetAll("param"), IsEmpty());
}

TEST(ParseOptionsTest, RepeatableOptionsKeepEveryValueOthersTheLast) {
  const OptionValues values =
      Parse({"--param", "a=1", "--param=b=2", "--algorithm", "x", "--algorithm", "y"});
  EXPECT_THAT(values.GetAll("param"), ElementsAre("a=1", "b=2"));  // split at the first '='
  EXPECT_EQ(values.Get("algorithm"), "y");
}

TEST(ParseOptionsTest, TheWordAfterAValueOptionIsItsValue) {
  EXPECT_EQ(Parse({"--algorithm", "--json"}).Get("algorithm"), "--json");
  EXPECT_EQ(Parse({"--output="}).Get("output"), "");
  // An empty value does not take the next word.
  const OptionValues values = Parse({"--output=", "--json"});
  EXPECT_TRUE(values.Has("output"));
  EXPECT_EQ(values.Get("output", "unset"), "");
  EXPECT_TRUE(values.Has("json"));
  EXPECT_EQ(Parse({"--output", ""}).Get("output", "unset"), "");
}

TEST(ParseOptionsTest, DashIsAnArgumentAndDoubleDashEndsTheOptions) {
  const OptionValues values = Parse({"-", "--", "--json", "-o"});
  EXPECT_FALSE(values.Has("json"));
  EXPECT_FALSE(values.Has("output"));
  EXPECT_THAT(values.positionals(), ElementsAre("-", "--json", "-o"));
}

TEST(ParseOptionsTest, StopsAtTheFirstArgumentWhenAsked) {
  const ParseRules command_follows{.stop_at_first_positional = true};
  absl::StatusOr<OptionValues> values =
      ParseOptions(Specs(), {"--json", "plan", "--algorithm", "x", "--", "y"}, command_follows);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_TRUE(values->Has("json"));
  EXPECT_FALSE(values->Has("algorithm"));
  EXPECT_THAT(values->positionals(), ElementsAre("plan", "--algorithm", "x", "--", "y"));

  values = ParseOptions(Specs(), {"--", "plan"}, command_follows);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(values->positionals(), ElementsAre("plan"));

  values = ParseOptions(Specs(), {"--help"}, command_follows);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_TRUE(values->Has("help"));
  EXPECT_THAT(values->positionals(), IsEmpty());  // no command

  EXPECT_EQ(ParseError({"--bogus", "plan"}, command_follows).message(), "unknown option --bogus");
}

TEST(ParseOptionsTest, ErrorsNameTheOption) {
  EXPECT_EQ(ParseError({"--bogus"}).message(), "unknown option --bogus");
  EXPECT_EQ(ParseError({"-x"}).message(), "unknown option -x");
  EXPECT_EQ(ParseError({"--bogus=1", "--other"}).message(), "unknown option --bogus=1");
  EXPECT_EQ(ParseError({"--json=yes"}).message(), "option --json takes no value");
  EXPECT_EQ(ParseError({"task.json", "--algorithm"}).message(),
            "option --algorithm needs a value (NAME)");
  EXPECT_EQ(ParseError({"-o"}).message(), "option --output needs a value (FILE)");
}

// shardplan-offline's commands: no arguments, each option at most once, some required.
std::vector<OptionSpec> OfflineSpecs() {
  return {{"samples", "N", "", "", true},
          {"seed", "S", "", "7"},
          {"noise", "X", "", "0"},
          {"dry-run", "", "", ""}};
}
constexpr ParseRules kOffline{.allow_positionals = false, .repeated_option_is_error = true};

TEST(ParseOptionsTest, StrictRulesRefuseArgumentsRepeatsAndMissingOptions) {
  absl::StatusOr<OptionValues> values =
      ParseOptions(OfflineSpecs(), {"--samples", "12", "--noise=0.5", "--dry-run"}, kOffline);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ(*values->GetInt("samples"), 12);
  EXPECT_EQ(*values->GetUint("seed"), 7u);  // the default
  EXPECT_FALSE(values->Has("seed"));
  EXPECT_DOUBLE_EQ(*values->GetDouble("noise"), 0.5);
  EXPECT_TRUE(values->Has("dry-run"));

  const auto error = [](const std::vector<std::string>& args) {
    return std::string(ParseError(args, kOffline, OfflineSpecs()).message());
  };
  EXPECT_EQ(error({}), "--samples is required");
  EXPECT_EQ(error({"--samples", "1", "--samples", "2"}), "--samples given twice");
  EXPECT_EQ(error({"--samples", "1", "--seed", "1", "--seed", "2", "--seed", "3"}),
            "--seed given 3 times");
  EXPECT_EQ(error({"--samples"}), "option --samples needs a value (N)");
  EXPECT_EQ(error({"--samples", "1", "--bogus", "2"}), "unknown option --bogus");
  EXPECT_EQ(error({"--bogus", "2"}), "unknown option --bogus");  // before the missing --samples
  EXPECT_EQ(error({"--samples", "1", "stray"}), "unexpected argument 'stray'");
  EXPECT_EQ(error({"--samples", "1", "--dry-run=yes"}), "option --dry-run takes no value");
}

}  // namespace
}  // namespace shardplan
