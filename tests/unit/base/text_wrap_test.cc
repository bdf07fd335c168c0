#include "base/text_wrap.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(WrapTextTest, BreaksAtSpacesWithinTheWidth) {
  EXPECT_THAT(WrapText("one two three four", 9), ElementsAre("one two", "three", "four"));
  EXPECT_THAT(WrapText("one two three four", 100), ElementsAre("one two three four"));
  EXPECT_THAT(WrapText("  spaced   out  ", 100), ElementsAre("spaced out"));
  EXPECT_THAT(WrapText("", 10), IsEmpty());
}

TEST(WrapTextTest, ALongerWordHasALineOfItsOwn) {
  EXPECT_THAT(WrapText("a incomprehensibilities b", 6),
              ElementsAre("a", "incomprehensibilities", "b"));
}

TEST(WrapWordsTest, KeepsEachWordWhole) {
  EXPECT_THAT(WrapWords({"(default: 1)", "(repeatable)"}, 14),
              ElementsAre("(default: 1)", "(repeatable)"));
}

TEST(HangingIndentTest, IndentsLaterLinesUnderTheFirstWord) {
  EXPECT_EQ(HangingIndent("parameters:  ", "a=1 b=2 c=3", 20),
            "parameters:  a=1 b=2\n"
            "             c=3\n");
  EXPECT_EQ(HangingIndent("parameters:  ", "a=1 b=2 c=3", 19),
            "parameters:  a=1\n"
            "             b=2\n"
            "             c=3\n");
  EXPECT_EQ(HangingIndent("cost:  ", "1.0 ms"), "cost:  1.0 ms\n");
  EXPECT_EQ(HangingIndent("empty: ", ""), "empty: \n");
  EXPECT_EQ(HangingIndent("x: ", std::string(300, 'y') + " z"),
            "x: " + std::string(300, 'y') + "\n   z\n");
}

}  // namespace
}  // namespace shardplan
