#include "client/cli/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace shardplan::cli {

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_align)
    : headers_(std::move(headers)), right_align_(std::move(right_align)) {
  right_align_.resize(headers_.size(), false);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(std::max(cells.size(), headers_.size()));
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  std::vector<size_t> widths(headers_.size(), 0);
  for (size_t i = 0; i < headers_.size(); ++i) widths[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string padding(widths[i] - cells[i].size(), ' ');
      if (i > 0) line += "  ";
      line += right_align_[i] ? padding + cells[i] : cells[i] + padding;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::string rule;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (i > 0) rule += "  ";
    rule += std::string(widths[i], '-');
  }
  std::string text = render_row(headers_) + rule + "\n";
  for (const auto& row : rows_) text += render_row(row);
  return text;
}

}  // namespace shardplan::cli
