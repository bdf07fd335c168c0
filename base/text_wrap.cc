#include "base/text_wrap.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace shardplan {

std::vector<std::string> WrapWords(const std::vector<std::string>& words, size_t width) {
  std::vector<std::string> lines;
  for (const std::string& word : words) {
    if (lines.empty() || lines.back().size() + 1 + word.size() > width) {
      lines.push_back(word);
    } else {
      absl::StrAppend(&lines.back(), " ", word);
    }
  }
  return lines;
}

std::vector<std::string> WrapText(absl::string_view text, size_t width) {
  return WrapWords(absl::StrSplit(text, ' ', absl::SkipEmpty()), width);
}

std::string HangingIndent(absl::string_view lead, absl::string_view text, size_t width) {
  const size_t room = width > lead.size() ? width - lead.size() : 1;
  std::vector<std::string> lines = WrapText(text, room);
  if (lines.empty()) lines.emplace_back();
  return absl::StrCat(lead, absl::StrJoin(lines, absl::StrCat("\n", std::string(lead.size(), ' '))),
                      "\n");
}

}  // namespace shardplan
