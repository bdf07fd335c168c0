#ifndef SHARDPLAN_BASE_TEXT_WRAP_H_
#define SHARDPLAN_BASE_TEXT_WRAP_H_

// Words broken into lines for terminals: option help (base/option_help.h) and the CLI's tables.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace shardplan {

// The width every program's terminal output keeps to: help, tables, summaries.
inline constexpr size_t kTerminalWidth = 100;

// `words` in lines of at most `width` columns, one space between words; a word longer than
// `width` has a line of its own. No words: no lines.
std::vector<std::string> WrapWords(const std::vector<std::string>& words, size_t width);

// The words of `text` (split at spaces) in lines of at most `width` columns (WrapWords).
std::vector<std::string> WrapText(absl::string_view text, size_t width);

// `lead` followed by `text` wrapped at `width` columns, later lines indented by lead's width
// (a hanging indent), each line ending with '\n':
//   "parameters:  a=1 b=2 ...\n             c=3\n".
std::string HangingIndent(absl::string_view lead, absl::string_view text,
                          size_t width = kTerminalWidth);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_TEXT_WRAP_H_
