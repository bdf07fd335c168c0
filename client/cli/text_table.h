#ifndef SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_
#define SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace shardplan::cli {

// A plain-text table with aligned columns, for terminals:
//   TextTable table({"device", "memory GiB"}, {false, true});
//   table.AddRow({"0", "3.21 / 16.00"});
//   std::cout << table.Render();
class TextTable {
 public:
  // `right_align[i]` right-aligns column i (numbers); missing entries mean left.
  explicit TextTable(std::vector<std::string> headers, std::vector<bool> right_align = {});

  // Rows shorter than the header are padded with empty cells.
  void AddRow(std::vector<std::string> cells);

  // Header, a rule of dashes, then the rows; columns separated by two spaces, no trailing blanks.
  std::string Render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_TEXT_TABLE_H_
