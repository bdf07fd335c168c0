// BuildApp: the CLI11 options made from OptionSpecs, as parsing and help see them.

#include "base/cli11_app.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(BuildAppTest, OneCli11OptionPerSpec) {
  const std::vector<OptionSpec> specs = {
      OptionSpec::Value("output", "FILE", "write to FILE", 'o'),
      OptionSpec::Value("param", "KEY=VALUE", "algorithm parameter").Repeatable(),
      OptionSpec::Switch("json", "print JSON"),
      {"samples", "N", "samples", "10", true},
  };
  const std::unique_ptr<CLI::App> app = BuildApp(specs);
  EXPECT_EQ(app->get_help_ptr(), nullptr);  // programs declare their own --help

  const CLI::Option* output = FindOption(*app, specs[0]);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->get_type_name(), "FILE");
  EXPECT_TRUE(output->check_sname("o"));
  EXPECT_EQ(output->get_description(), "write to FILE");
  EXPECT_EQ(output->get_multi_option_policy(), CLI::MultiOptionPolicy::TakeLast);

  EXPECT_EQ(FindOption(*app, specs[1])->get_multi_option_policy(), CLI::MultiOptionPolicy::TakeAll);

  const CLI::Option* json = FindOption(*app, specs[2]);
  EXPECT_EQ(json->get_expected_max(), 0);  // a flag
  EXPECT_TRUE(json->get_disable_flag_override());

  const CLI::Option* samples = FindOption(*app, specs[3]);
  EXPECT_EQ(samples->get_default_str(), "10");
  EXPECT_TRUE(samples->get_required());
}

}  // namespace
}  // namespace shardplan
