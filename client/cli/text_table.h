#ifndef SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_
#define SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_

#include <string>
#include <vector>

#include "base/text_wrap.h"

namespace shardplan::cli {

// A plain-text table with aligned columns, for terminals:
//   TextTable table({"device", "memory GiB"}, {false, true});
//   table.AddRow({"0", "3.21 / 16.00"});
//   std::cout << table.Render();
// Columns marked with Wrap() break their cells at spaces onto continuation lines when the table
// would otherwise pass the width Render is given (kTerminalWidth, 100, by default).
class TextTable {
 public:
  // `right_align[i]` right-aligns column i (numbers); missing entries mean left.
  explicit TextTable(std::vector<std::string> headers, std::vector<bool> right_align = {});

  // Lets `column` wrap. When the table is too wide, the wrapping columns narrow in the order
  // they were marked, each at most down to its header or its longest word, until it fits.
  TextTable& Wrap(size_t column);

  // Rows shorter than the header are padded with empty cells.
  void AddRow(std::vector<std::string> cells);

  // Header, a rule of dashes, then the rows; columns separated by two spaces, no trailing blanks.
  // Lines keep within `max_width` columns (0: no limit) unless the columns that do not wrap,
  // or a single word, are wider than that.
  std::string Render(size_t max_width = kTerminalWidth) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_align_;
  std::vector<size_t> wrap_order_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_
