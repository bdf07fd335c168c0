// TextTable: aligned columns, and wrapping columns that keep a table within its width.

#include "client/cli/text_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

size_t Widest(const std::string& text) {
  size_t widest = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) widest = std::max(widest, line.size());
  return widest;
}

TEST(TextTableTest, AlignsColumns) {
  TextTable table({"device", "total ms"}, {false, true});
  table.AddRow({"0", "13.014"});
  table.AddRow({"10 *", "8.1"});
  EXPECT_EQ(table.Render(),
            "device  total ms\n"
            "------  --------\n"
            "0         13.014\n"
            "10 *         8.1\n");
}

TEST(TextTableTest, NarrowTablesDoNotWrap) {
  TextTable table({"name", "description"});
  table.Wrap(1);
  table.AddRow({"a", "short words only"});
  EXPECT_EQ(table.Render(22),
            "name  description\n"
            "----  ----------------\n"
            "a     short words only\n");
  EXPECT_EQ(table.Render(21),
            "name  description\n"
            "----  ---------------\n"
            "a     short words\n"
            "      only\n");
}

TEST(TextTableTest, WrappingColumnsNarrowInOrderUntilTheTableFits) {
  TextTable table({"algorithm", "sharding", "description"});
  table.Wrap(1).Wrap(2);
  table.AddRow({"torchrec", "table_wise, column_wise, row_wise, data_parallel",
                "TorchRec's planner: table-wise, column-wise, row-wise and data-parallel options "
                "scored by its analytic estimator."});
  table.AddRow({"random", "table_wise", "Each table on a random device."});
  const std::string text = table.Render(60);
  EXPECT_LE(Widest(text), 60u) << text;
  EXPECT_EQ(text,
            "algorithm  sharding       description\n"
            "---------  -------------  ----------------------------------\n"
            "torchrec   table_wise,    TorchRec's planner: table-wise,\n"
            "           column_wise,   column-wise, row-wise and\n"
            "           row_wise,      data-parallel options scored by\n"
            "           data_parallel  its analytic estimator.\n"
            "random     table_wise     Each table on a random device.\n");
  // No limit: one line a row.
  const std::string unlimited = table.Render(0);
  EXPECT_EQ(std::count(unlimited.begin(), unlimited.end(), '\n'), 4);
}

TEST(TextTableTest, FixedColumnsWiderThanTheLimitStillRender) {
  TextTable table({"a", "b"});
  table.Wrap(1);
  table.AddRow({std::string(30, 'x'), "some words here"});
  const std::string text = table.Render(20);
  EXPECT_THAT(text, ::testing::HasSubstr(std::string(30, 'x') + "  some\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("\n" + std::string(32, ' ') + "words\n"));
}

}  // namespace
}  // namespace shardplan::cli
