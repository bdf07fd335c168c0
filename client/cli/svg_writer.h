#ifndef SHARDPLAN_CLIENT_CLI_SVG_WRITER_H_
#define SHARDPLAN_CLIENT_CLI_SVG_WRITER_H_

// A small writer of SVG documents (no dependency): elements with escaped attributes and text,
// numbers in a short fixed form. What `shardplan plot` draws with (plan_plot.h).
//   SvgWriter svg(640, 480);
//   svg.Element("rect", {{"x", Num(10)}, {"y", Num(20)}, {"width", "5"}, {"height", "8"}});
//   svg.Element("text", {{"x", "10"}, {"y", "40"}}, "a < b");
//   std::string document = std::move(svg).Finish();

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace shardplan::cli {

// Text and attribute values for XML: & < > " ' as entities; control characters XML 1.0 forbids
// (all below 0x20 but tab, newline and carriage return) become U+FFFD; invalid UTF-8 bytes too.
std::string XmlEscape(absl::string_view text);

// A coordinate or length: at most two decimals, no trailing zeros ("12", "12.5", "-0.25").
std::string Num(double value);

// At most `max_chars` characters (UTF-8 code points) of `text`, the last one "…" when cut.
std::string Ellipsize(absl::string_view text, size_t max_chars);

using SvgAttributes = std::vector<std::pair<std::string, std::string>>;

class SvgWriter {
 public:
  // An <svg> root of this size (pixels), with a viewBox of the same.
  SvgWriter(double width, double height);

  // <name attributes/> or, with text, <name attributes>text</name>. Values and text are escaped.
  void Element(absl::string_view name, const SvgAttributes& attributes,
               absl::string_view text = "");
  // <name attributes> ... until the matching Close().
  void Open(absl::string_view name, const SvgAttributes& attributes = {});
  void Close();

  // The document: the XML declaration, the root and everything added, every element closed.
  std::string Finish() &&;

 private:
  // Indentation, "<name" and the escaped attributes.
  void StartTag(absl::string_view name, const SvgAttributes& attributes);

  std::string text_;
  std::vector<std::string> open_;
};

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_SVG_WRITER_H_
