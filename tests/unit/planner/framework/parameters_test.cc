// ResolveParams and ParamValues: canonical spellings, defaults, bounds and error messages.

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/framework/parameters.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

ParamSpec Spec(std::string name, ParamType type, std::string default_value,
               std::optional<double> min_value = std::nullopt,
               std::optional<double> max_value = std::nullopt) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.min_value = min_value;
  spec.max_value = max_value;
  return spec;
}

std::vector<ParamSpec> Specs() {
  return {Spec("beam_width", ParamType::kInt, "4", 1, 64),
          Spec("temperature", ParamType::kDouble, "0.5", 0.0, std::nullopt),
          Spec("prune", ParamType::kBool, "true"), Spec("mode", ParamType::kString, "fast")};
}

std::string Resolved(const ParamSpec& spec, const std::string& given) {
  absl::StatusOr<ParamValues> values = ResolveParams({spec}, {{spec.name, given}});
  if (!values.ok()) return "error: " + test::Message(values.status());
  return values->values().at(spec.name);
}

TEST(ParamTypeNameTest, Names) {
  EXPECT_STREQ(ParamTypeName(ParamType::kInt), "int");
  EXPECT_STREQ(ParamTypeName(ParamType::kDouble), "double");
  EXPECT_STREQ(ParamTypeName(ParamType::kBool), "bool");
  EXPECT_STREQ(ParamTypeName(ParamType::kString), "string");
}

TEST(ResolveParamsTest, DefaultsFillEveryParameter) {
  absl::StatusOr<ParamValues> values = ResolveParams(Specs(), {});
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(values->values(),
              UnorderedElementsAre(Pair("beam_width", "4"), Pair("temperature", "0.5"),
                                   Pair("prune", "true"), Pair("mode", "fast")));
  EXPECT_EQ(values->GetInt("beam_width"), 4);
  EXPECT_EQ(values->GetDouble("temperature"), 0.5);
  EXPECT_TRUE(values->GetBool("prune"));
  EXPECT_EQ(values->GetString("mode"), "fast");
}

TEST(ResolveParamsTest, GivenValuesOverrideDefaults) {
  absl::StatusOr<ParamValues> values =
      ResolveParams(Specs(), {{"beam_width", "8"}, {"prune", "0"}, {"mode", "thorough"}});
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ(values->GetInt("beam_width"), 8);
  EXPECT_FALSE(values->GetBool("prune"));
  EXPECT_EQ(values->GetString("mode"), "thorough");
  EXPECT_EQ(values->GetDouble("temperature"), 0.5);
}

TEST(ResolveParamsTest, IntCanonicalSpelling) {
  const ParamSpec spec = Spec("n", ParamType::kInt, "0");
  EXPECT_EQ(Resolved(spec, "3"), "3");
  EXPECT_EQ(Resolved(spec, "03"), "3");
  EXPECT_EQ(Resolved(spec, "3.0"), "3");
  EXPECT_EQ(Resolved(spec, "+3"), "3");
  EXPECT_EQ(Resolved(spec, "-12"), "-12");
  EXPECT_EQ(Resolved(spec, "1e3"), "1000");
  EXPECT_EQ(Resolved(spec, "9223372036854775807"), "9223372036854775807");
}

TEST(ResolveParamsTest, IntRejectsNonIntegers) {
  const ParamSpec spec = Spec("beam_width", ParamType::kInt, "0");
  EXPECT_EQ(Resolved(spec, "wide"),
            "error: parameters.beam_width: expected an integer, got \"wide\"");
  EXPECT_EQ(Resolved(spec, "3.5"),
            "error: parameters.beam_width: expected an integer, got \"3.5\"");
  EXPECT_EQ(Resolved(spec, ""), "error: parameters.beam_width: expected an integer, got \"\"");
  EXPECT_EQ(Resolved(spec, "1e30"),
            "error: parameters.beam_width: expected an integer, got \"1e30\"");
}

TEST(ResolveParamsTest, DoubleCanonicalSpellingIsShortestRoundTrip) {
  const ParamSpec spec = Spec("x", ParamType::kDouble, "0");
  EXPECT_EQ(Resolved(spec, "0.50"), "0.5");
  EXPECT_EQ(Resolved(spec, "3"), "3");
  EXPECT_EQ(Resolved(spec, "0.1"), "0.1");
  EXPECT_EQ(Resolved(spec, "1e-3"), "0.001");
  EXPECT_EQ(Resolved(spec, "-0"), "0");
  EXPECT_EQ(Resolved(spec, "0.30000000000000004"), "0.30000000000000004");
  // Every canonical spelling reads back as the same double.
  for (const char* text : {"0.1", "2.5e-8", "123456.789", "1e300", "3.141592653589793"}) {
    const std::string canonical = Resolved(spec, text);
    EXPECT_EQ(std::stod(canonical), std::stod(text)) << text;
  }
}

TEST(ResolveParamsTest, DoubleRejectsNonNumbers) {
  const ParamSpec spec = Spec("temperature", ParamType::kDouble, "0");
  EXPECT_EQ(Resolved(spec, "warm"),
            "error: parameters.temperature: expected a finite number, got \"warm\"");
  EXPECT_EQ(Resolved(spec, "nan"),
            "error: parameters.temperature: expected a finite number, got \"nan\"");
  EXPECT_EQ(Resolved(spec, "inf"),
            "error: parameters.temperature: expected a finite number, got \"inf\"");
}

TEST(ResolveParamsTest, BoolSpellings) {
  const ParamSpec spec = Spec("prune", ParamType::kBool, "false");
  EXPECT_EQ(Resolved(spec, "true"), "true");
  EXPECT_EQ(Resolved(spec, "1"), "true");
  EXPECT_EQ(Resolved(spec, "false"), "false");
  EXPECT_EQ(Resolved(spec, "0"), "false");
  EXPECT_EQ(Resolved(spec, "TRUE"), "true");
  EXPECT_EQ(Resolved(spec, "yes"),
            "error: parameters.prune: expected true, false, 1 or 0, got \"yes\"");
}

TEST(ResolveParamsTest, StringsPassThrough) {
  EXPECT_EQ(Resolved(Spec("mode", ParamType::kString, ""), " Any Thing "), " Any Thing ");
}

TEST(ResolveParamsTest, Bounds) {
  const std::vector<ParamSpec> specs = Specs();
  EXPECT_STATUS(ResolveParams(specs, {{"beam_width", "0"}}), absl::StatusCode::kInvalidArgument,
                "parameters.beam_width: must be at least 1, got 0");
  EXPECT_STATUS(ResolveParams(specs, {{"beam_width", "65"}}), absl::StatusCode::kInvalidArgument,
                "parameters.beam_width: must be at most 64, got 65");
  EXPECT_TRUE(ResolveParams(specs, {{"beam_width", "64"}}).ok());
  EXPECT_TRUE(ResolveParams(specs, {{"beam_width", "1"}}).ok());
  EXPECT_STATUS(ResolveParams(specs, {{"temperature", "-0.25"}}),
                absl::StatusCode::kInvalidArgument,
                "parameters.temperature: must be at least 0, got -0.25");
}

TEST(ResolveParamsTest, UnknownNamesListTheKnownOnes) {
  EXPECT_STATUS(ResolveParams(Specs(), {{"beam", "2"}}), absl::StatusCode::kInvalidArgument,
                "parameters.beam: unknown parameter; known: beam_width, mode, prune, temperature");
  EXPECT_STATUS(ResolveParams({}, {{"x", "1"}}), absl::StatusCode::kInvalidArgument,
                "parameters.x: unknown parameter; this algorithm takes no parameters");
}

TEST(ResolveParamsTest, BrokenDefaultIsAnInternalError) {
  EXPECT_STATUS(ResolveParams({Spec("n", ParamType::kInt, "many")}, {}),
                absl::StatusCode::kInternal, "parameters.n: expected an integer");
}

TEST(ParamValuesTest, GettersParseCanonicalSpellings) {
  const ParamValues values(
      std::map<std::string, std::string>{{"i", "-7"}, {"d", "2.5"}, {"b", "false"}, {"s", "x"}});
  EXPECT_EQ(values.GetInt("i"), -7);
  EXPECT_EQ(values.GetDouble("d"), 2.5);
  EXPECT_FALSE(values.GetBool("b"));
  EXPECT_EQ(values.GetString("s"), "x");
}

TEST(ParamValuesDeathTest, WrongNameIsAProgrammingError) {
  const ParamValues values(std::map<std::string, std::string>{{"i", "1"}, {"s", "word"}});
  EXPECT_DEATH(values.GetInt("j"), "no resolved parameter \"j\"");
  EXPECT_DEATH(values.GetInt("s"), "parameter \"s\" is not an int");
}

}  // namespace
}  // namespace shardplan
