// OptionValues: values, defaults and the typed getters' errors.

#include "base/option_values.h"

#include "base/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;

TEST(OptionValuesTest, TheLastValueThenTheDefaultThenTheFallback) {
  OptionValues values;
  values.Add("seed", "1");
  values.Add("seed", "2");
  values.SetDefault("seed", "0");
  values.SetDefault("pool", "pool.json");
  EXPECT_TRUE(values.Has("seed"));
  EXPECT_EQ(values.Get("seed"), "2");
  EXPECT_THAT(values.GetAll("seed"), ElementsAre("1", "2"));
  EXPECT_FALSE(values.Has("pool"));
  EXPECT_EQ(values.Get("pool", "other"), "pool.json");
  EXPECT_EQ(values.Get("out", "-"), "-");
  EXPECT_EQ(values.Get("out"), "");
}

TEST(OptionValuesTest, TypedGettersNameTheOption) {
  OptionValues values;
  values.Add("samples", "x");
  values.Add("seed", "-1");
  values.Add("noise", "inf");
  values.Add("count", "12");
  values.SetDefault("ratio", "0.25");
  EXPECT_EQ(values.GetInt("samples").status().message(), "--samples 'x' is not an integer");
  EXPECT_EQ(values.GetUint("seed").status().message(), "--seed '-1' is not a non-negative integer");
  EXPECT_EQ(values.GetDouble("noise").status().message(), "--noise 'inf' is not a number");
  for (const absl::Status& status :
       {values.GetInt("samples").status(), values.GetUint("seed").status(),
        values.GetDouble("noise").status()}) {
    EXPECT_TRUE(IsUsageError(status)) << status;
  }
  EXPECT_EQ(*values.GetInt("count"), 12);
  EXPECT_EQ(*values.GetInt("seed"), -1);
  EXPECT_DOUBLE_EQ(*values.GetDouble("ratio"), 0.25);
}

TEST(OptionValuesTest, OneOfNamesTheOptionAndItsChoices) {
  OptionValues values;
  values.Add("kind", "io");
  values.Add("shape", "dlrm");
  values.SetDefault("loss", "mse");
  EXPECT_EQ(*values.GetOneOf("shape", {"dlrm", "log-uniform"}), "dlrm");
  EXPECT_EQ(*values.GetOneOf("loss", {"mse", "relative"}), "mse");  // the default counts
  EXPECT_EQ(values.GetOneOf("kind", {"compute", "comm"}).status().message(),
            "--kind 'io' is not compute or comm");
  EXPECT_EQ(values.GetOneOf("kind", {"a", "b", "c"}).status().message(),
            "--kind 'io' is not a, b or c");
  EXPECT_EQ(values.GetOneOf("kind", {"compute", "comm"}).status().code(), UsageError("x").code());
}

}  // namespace
}  // namespace shardplan
