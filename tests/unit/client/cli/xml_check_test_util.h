#ifndef SHARDPLAN_TESTS_UNIT_CLIENT_CLI_XML_CHECK_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_CLIENT_CLI_XML_CHECK_TEST_UTIL_H_

// A small XML well-formedness check for the SVG the CLI writes (no XML library in the build):
// an optional declaration, one root element, tags that nest and match, attributes quoted once
// each, no '<' in values or text, and '&' only as the five named entities or a character
// reference. Comments are skipped; DTDs, CDATA and processing instructions are not expected.

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace shardplan::cli::testing {

// "" when the entities of `text` (text or an attribute value) are well formed, else the problem.
inline std::string EntityProblem(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') return absl::StrCat("'<' in \"", text, "\"");
    if (text[i] != '&') continue;
    const size_t end = text.find(';', i);
    if (end == absl::string_view::npos) return absl::StrCat("bare '&' in \"", text, "\"");
    const absl::string_view entity = text.substr(i + 1, end - i - 1);
    static const std::set<std::string> kNamed = {"amp", "lt", "gt", "quot", "apos"};
    bool ok = kNamed.count(std::string(entity)) > 0;
    if (!ok && entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x';
      const absl::string_view digits = entity.substr(hex ? 2 : 1);
      ok = !digits.empty();
      for (char c : digits) ok = ok && (hex ? absl::ascii_isxdigit(c) : absl::ascii_isdigit(c));
    }
    if (!ok) return absl::StrCat("bad entity '&", entity, ";'");
  }
  return "";
}

inline bool IsNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == ':' || c == '-' || c == '.';
}

// "" when `xml` is well formed (see above), else the first problem with its offset.
inline std::string XmlProblem(absl::string_view xml) {
  size_t i = 0;
  const auto problem = [&](absl::string_view what) { return absl::StrCat(what, " at ", i); };
  if (xml.substr(0, 5) == "<?xml") {
    i = xml.find("?>");
    if (i == absl::string_view::npos) return "unterminated declaration";
    i += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const absl::string_view text = xml.substr(i, lt == absl::string_view::npos ? xml.npos : lt - i);
    if (open.empty() && !absl::StripAsciiWhitespace(text).empty()) {
      return problem("text outside the root");
    }
    if (std::string bad = EntityProblem(text); !bad.empty()) return problem(bad);
    if (lt == absl::string_view::npos) break;
    i = lt;
    if (xml.substr(i, 4) == "<!--") {
      i = xml.find("-->", i);
      if (i == absl::string_view::npos) return "unterminated comment";
      i += 3;
      continue;
    }
    const bool closing = xml.substr(i, 2) == "</";
    i += closing ? 2 : 1;
    const size_t name_start = i;
    while (i < xml.size() && IsNameChar(xml[i])) ++i;
    const std::string name(xml.substr(name_start, i - name_start));
    if (name.empty() || absl::ascii_isdigit(name[0]) || name[0] == '-' || name[0] == '.') {
      return problem("bad element name");
    }
    if (closing) {
      while (i < xml.size() && absl::ascii_isspace(xml[i])) ++i;
      if (i >= xml.size() || xml[i] != '>') return problem("bad end tag");
      if (open.empty() || open.back() != name)
        return problem(absl::StrCat("</", name, "> unmatched"));
      open.pop_back();
      ++i;
      continue;
    }
    if (open.empty() && ++roots > 1) return problem("second root element");
    std::set<std::string> attributes;
    while (true) {
      const size_t before_space = i;
      while (i < xml.size() && absl::ascii_isspace(xml[i])) ++i;
      if (i >= xml.size()) return problem("unterminated tag");
      if (xml.substr(i, 2) == "/>") {
        i += 2;
        break;
      }
      if (xml[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (i == before_space) return problem("no space before an attribute");
      const size_t key_start = i;
      while (i < xml.size() && IsNameChar(xml[i])) ++i;
      const std::string key(xml.substr(key_start, i - key_start));
      if (key.empty()) return problem("bad attribute name");
      if (!attributes.insert(key).second) return problem(absl::StrCat("attribute ", key, " twice"));
      if (xml.substr(i, 2) != "=\"") return problem(absl::StrCat("attribute ", key, " unquoted"));
      i += 2;
      const size_t value_end = xml.find('"', i);
      if (value_end == absl::string_view::npos) return problem("unterminated attribute value");
      if (std::string bad = EntityProblem(xml.substr(i, value_end - i)); !bad.empty()) {
        return problem(bad);
      }
      i = value_end + 1;
    }
  }
  if (!open.empty()) return absl::StrCat("<", open.back(), "> not closed");
  if (roots != 1) return "no root element";
  return "";
}

}  // namespace shardplan::cli::testing

#endif  // SHARDPLAN_TESTS_UNIT_CLIENT_CLI_XML_CHECK_TEST_UTIL_H_
