#include "client/cli/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace shardplan::cli {
namespace {

// The narrowest a wrapping column may get: its header, and its longest word.
size_t MinimumWidth(const std::string& header, const std::vector<std::vector<std::string>>& rows,
                    size_t column) {
  size_t width = header.size();
  for (const auto& row : rows) {
    for (absl::string_view word : absl::StrSplit(row[column], ' ', absl::SkipEmpty())) {
      width = std::max(width, word.size());
    }
  }
  return width;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_align)
    : headers_(std::move(headers)), right_align_(std::move(right_align)) {
  right_align_.resize(headers_.size(), false);
}

TextTable& TextTable::Wrap(size_t column) {
  if (column < headers_.size()) wrap_order_.push_back(column);
  return *this;
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(std::max(cells.size(), headers_.size()));
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(size_t max_width) const {
  std::vector<size_t> widths(headers_.size(), 0);
  for (size_t i = 0; i < headers_.size(); ++i) widths[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  // Narrow the wrapping columns, in order, until the table fits.
  size_t total = widths.empty() ? 0 : 2 * (widths.size() - 1);
  for (size_t width : widths) total += width;
  for (size_t column : wrap_order_) {
    if (max_width == 0 || total <= max_width) break;
    const size_t narrowest = MinimumWidth(headers_[column], rows_, column);
    const size_t cut = std::min(total - max_width, widths[column] - narrowest);
    widths[column] -= cut;
    total -= cut;
  }

  auto render_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string padding(widths[i] - std::min(widths[i], cells[i].size()), ' ');
      if (i > 0) line += "  ";
      line += right_align_[i] ? padding + cells[i] : cells[i] + padding;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  // A row is as many lines as its most wrapped cell.
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> pieces(cells.size());
    size_t lines = 1;
    for (size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
      pieces[i] = cells[i].size() > widths[i] ? WrapText(cells[i], widths[i])
                                              : std::vector<std::string>{cells[i]};
      lines = std::max(lines, pieces[i].size());
    }
    std::string text;
    for (size_t line = 0; line < lines; ++line) {
      std::vector<std::string> line_cells(widths.size());
      for (size_t i = 0; i < widths.size(); ++i) {
        if (line < pieces[i].size()) line_cells[i] = pieces[i][line];
      }
      text += render_line(line_cells);
    }
    return text;
  };
  std::string rule;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (i > 0) rule += "  ";
    rule += std::string(widths[i], '-');
  }
  std::string text = render_line(headers_) + rule + "\n";
  for (const auto& row : rows_) text += render_row(row);
  return text;
}

}  // namespace shardplan::cli
