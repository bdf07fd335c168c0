#include "lab/training/record_lines.h"

#include <string>
#include <vector>
#include <zlib.h>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/table_features.h"
#include "gtest/gtest.h"
#include "lab/collection/cost_record.h"
#include "lab/data/table_pool.h"
#include "lab/training/datasets.h"
#include "lab/training/gzip_lines.h"
#include "tests/unit/lab/training/training_test_data.h"
#include "tests/unit/support/test_files.h"

namespace shardplan::training {
namespace {

using testing_files::FreshDir;
using testing_files::WriteFile;

TEST(ForEachLineTest, ReadsGzipAndPlainAlikeWithLineNumbers) {
  const std::string dir = FreshDir();
  const std::string text = "first\n\nthird without newline";
  WriteGzip(dir + "/a.gz", text);
  WriteFile(dir + "/a.txt", text);
  for (const std::string& path : {dir + "/a.gz", dir + "/a.txt"}) {
    std::vector<std::string> lines;
    std::vector<int64_t> numbers;
    ASSERT_TRUE(ForEachLine(path, [&](int64_t n, const std::string& line) {
                  numbers.push_back(n);
                  lines.push_back(line);
                  return absl::OkStatus();
                }).ok());
    EXPECT_EQ(lines, (std::vector<std::string>{"first", "", "third without newline"}));
    EXPECT_EQ(numbers, (std::vector<int64_t>{1, 2, 3}));
  }
  EXPECT_EQ(ForEachLine(dir + "/missing.gz", [](int64_t, const std::string&) {
              return absl::OkStatus();
            }).code(),
            absl::StatusCode::kNotFound);
}

TEST(ForEachLineTest, TruncatedGzipIsDataLoss) {
  const std::string dir = FreshDir();
  std::string text;
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&text, "line ", i * 7919 % 1000, "\n");
  WriteGzip(dir + "/full.gz", text);
  const std::string bytes = testing_files::ReadFile(dir + "/full.gz");
  WriteFile(dir + "/cut.gz", bytes.substr(0, bytes.size() / 2));
  const absl::Status status =
      ForEachLine(dir + "/cut.gz", [](int64_t, const std::string&) { return absl::OkStatus(); });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
}

}  // namespace
}  // namespace shardplan::training
