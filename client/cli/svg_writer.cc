#include "client/cli/svg_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace shardplan::cli {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence at text[i], or 0 if it is not one.
size_t Utf8SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (length == 0 || i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong three- and four-byte forms, surrogates and code points above U+10FFFF.
  if (lead == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (lead == 0xED && byte(i + 1) > 0x9F) return 0;
  if (lead == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (lead == 0xF4 && byte(i + 1) > 0x8F) return 0;
  return length;
}

}  // namespace

std::string XmlEscape(absl::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      escaped += kReplacement;
      ++i;
      continue;
    }
    if (length > 1) {
      escaped.append(text.data() + i, length);
      i += length;
      continue;
    }
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          escaped += kReplacement;
        } else {
          escaped += c;
        }
    }
    ++i;
  }
  return escaped;
}

std::string Num(double value) {
  if (!std::isfinite(value)) return "0";
  std::string text = absl::StrFormat("%.2f", value);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

std::string Ellipsize(absl::string_view text, size_t max_chars) {
  std::vector<size_t> starts;  // byte offset of each character
  for (size_t i = 0; i < text.size();) {
    starts.push_back(i);
    const size_t length = Utf8SequenceLength(text, i);
    i += length == 0 ? 1 : length;
  }
  if (starts.size() <= max_chars) return std::string(text);
  if (max_chars == 0) return "";
  return absl::StrCat(text.substr(0, starts[max_chars - 1]), "\xE2\x80\xA6");  // …
}

SvgWriter::SvgWriter(double width, double height) {
  text_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
               {"width", Num(width)},
               {"height", Num(height)},
               {"viewBox", absl::StrCat("0 0 ", Num(width), " ", Num(height))}});
}

void SvgWriter::StartTag(absl::string_view name, const SvgAttributes& attributes) {
  text_.append(2 * open_.size(), ' ');
  absl::StrAppend(&text_, "<", name);
  for (const auto& [key, value] : attributes) {
    absl::StrAppend(&text_, " ", key, "=\"", XmlEscape(value), "\"");
  }
}

void SvgWriter::Element(absl::string_view name, const SvgAttributes& attributes,
                        absl::string_view text) {
  StartTag(name, attributes);
  if (text.empty()) {
    text_ += "/>\n";
  } else {
    absl::StrAppend(&text_, ">", XmlEscape(text), "</", name, ">\n");
  }
}

void SvgWriter::Open(absl::string_view name, const SvgAttributes& attributes) {
  StartTag(name, attributes);
  text_ += ">\n";
  open_.emplace_back(name);
}

void SvgWriter::Close() {
  if (open_.empty()) return;
  const std::string name = std::move(open_.back());
  open_.pop_back();
  text_.append(2 * open_.size(), ' ');
  absl::StrAppend(&text_, "</", name, ">\n");
}

std::string SvgWriter::Finish() && {
  while (!open_.empty()) Close();
  return std::move(text_);
}

}  // namespace shardplan::cli
