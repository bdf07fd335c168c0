// The SVG writer: escaping, number form, cutting long names, and documents that are well formed.

#include "client/cli/svg_writer.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/cli/xml_check_test_util.h"

namespace shardplan::cli {
namespace {

using ::shardplan::cli::testing::XmlProblem;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(XmlEscapeTest, EscapesMarkupCharacters) {
  EXPECT_EQ(XmlEscape("plain_table-01"), "plain_table-01");
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(XmlEscape("&amp;"), "&amp;amp;");  // already escaped text is text
}

TEST(XmlEscapeTest, KeepsUtf8AndReplacesWhatXmlForbids) {
  EXPECT_EQ(XmlEscape("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\x88"),
            "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\x88");
  EXPECT_EQ(XmlEscape("tab\tnewline\n"), "tab\tnewline\n");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(XmlEscape(std::string("nul\0x", 5)), "nul" + replacement + "x");
  EXPECT_EQ(XmlEscape("bell\x07"), "bell" + replacement);
  EXPECT_EQ(XmlEscape("latin1 \xE9t\xE9"), "latin1 " + replacement + "t" + replacement);
  EXPECT_EQ(XmlEscape("cut \xE2\x86"), "cut " + replacement + replacement);
  EXPECT_EQ(XmlEscape("surrogate \xED\xA0\x80"),
            "surrogate " + replacement + replacement + replacement);
}

TEST(NumTest, ShortFixedForm) {
  EXPECT_EQ(Num(12), "12");
  EXPECT_EQ(Num(12.5), "12.5");
  EXPECT_EQ(Num(12.345), "12.35");
  EXPECT_EQ(Num(-0.25), "-0.25");
  EXPECT_EQ(Num(-0.001), "0");
  EXPECT_EQ(Num(1e300 * 1e300), "0");  // never "inf" in a document
}

TEST(EllipsizeTest, CutsAtCharactersNotBytes) {
  EXPECT_EQ(Ellipsize("short", 5), "short");
  EXPECT_EQ(Ellipsize("longer name", 5), "long\xE2\x80\xA6");
  EXPECT_EQ(Ellipsize("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3), "\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(Ellipsize("abc", 0), "");
}

TEST(SvgWriterTest, WritesAWellFormedDocument) {
  SvgWriter svg(200, 100.5);
  svg.Open("g", {{"class", "plan"}, {"data-name", "t<1>&\"2\""}});
  svg.Element("rect", {{"x", Num(1)}, {"y", Num(2)}, {"width", "3"}, {"height", "4"}});
  svg.Element("text", {{"x", "0"}, {"y", "10"}}, "a < b & c");
  svg.Open("g");  // left open: Finish closes it
  svg.Element("title", {}, "</svg>");
  const std::string document = std::move(svg).Finish();
  EXPECT_EQ(XmlProblem(document), "") << document;
  EXPECT_THAT(document, HasSubstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  EXPECT_THAT(document, HasSubstr("width=\"200\" height=\"100.5\" viewBox=\"0 0 200 100.5\""));
  EXPECT_THAT(document, HasSubstr("data-name=\"t&lt;1&gt;&amp;&quot;2&quot;\""));
  EXPECT_THAT(document, HasSubstr(">a &lt; b &amp; c</text>"));
  EXPECT_THAT(document, HasSubstr("<title>&lt;/svg&gt;</title>"));
  EXPECT_THAT(document, Not(HasSubstr("a < b")));
}

TEST(XmlCheckTest, FindsWhatIsNotWellFormed) {
  // The checker the plot tests rely on catches what a careless writer would produce.
  EXPECT_EQ(XmlProblem("<svg><g/></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><g></svg>"), "");
  EXPECT_NE(XmlProblem("<svg>a & b</svg>"), "");
  EXPECT_NE(XmlProblem("<svg x=\"<\"/>"), "");
  EXPECT_NE(XmlProblem("<svg x=\"1\" x=\"2\"/>"), "");
  EXPECT_NE(XmlProblem("<svg x=1/>"), "");
  EXPECT_NE(XmlProblem("<svg/><svg/>"), "");
  EXPECT_NE(XmlProblem("<svg>&bogus;</svg>"), "");
  EXPECT_EQ(XmlProblem("<svg>&#233;&#xE9;&amp;</svg>"), "");
}

}  // namespace
}  // namespace shardplan::cli
