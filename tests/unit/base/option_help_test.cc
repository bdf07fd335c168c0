// FormatOptionsHelp: the options block of every program's --help.

#include "base/option_help.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(FormatOptionsHelpTest, AlignsOneLinePerOption) {
  EXPECT_EQ(FormatOptionsHelp({
                OptionSpec::Value("algorithm", "NAME", "planning algorithm"),
                OptionSpec::Value("param", "KEY=VALUE", "algorithm parameter").Repeatable(),
                OptionSpec::Value("output", "FILE", "write to FILE", 'o'),
                OptionSpec::Switch("json", "print JSON"),
                OptionSpec::Switch("help", "show help", 'h'),
            }),
            "      --algorithm NAME   planning algorithm\n"
            "      --param KEY=VALUE  algorithm parameter (repeatable)\n"
            "  -o, --output FILE      write to FILE\n"
            "      --json             print JSON\n"
            "  -h, --help             show help\n");
}

TEST(FormatOptionsHelpTest, DefaultsAndRequiredOptions) {
  EXPECT_EQ(FormatOptionsHelp({{"samples", "N", "samples to collect", "", true},
                               {"seed", "S", "seed", "0"},
                               {"threads", "N", "worker threads", "all cores"},
                               {"fresh", "", "ignore previous results", ""}}),
            "  --samples N  samples to collect (required)\n"
            "  --seed S     seed (default: 0)\n"
            "  --threads N  worker threads (default: all cores)\n"
            "  --fresh      ignore previous results\n");
}

TEST(FormatOptionsHelpTest, LongHelpWrapsUnderItself) {
  const std::string help = FormatOptionsHelp(
      {{"store", "URI",
        "plan store: sqlite:<path>, postgresql://<uri>, or \"\" for none; stored plans survive "
        "restarts and are shared by replicas",
        "\"sqlite:shardplan-plans.db\""}});
  EXPECT_EQ(help,
            "  --store URI  plan store: sqlite:<path>, postgresql://<uri>, or \"\" for none; "
            "stored plans survive\n"
            "               restarts and are shared by replicas (default: "
            "\"sqlite:shardplan-plans.db\")\n");
}

}  // namespace
}  // namespace shardplan
