#include "base/atomic_file.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using testing_files::FreshDir;
using testing_files::ReadFile;

TEST(CostDataAtomicFile, WritesAndReplacesWithoutLeavingTemporaries) {
  const std::string dir = FreshDir();
  const std::string path = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  EXPECT_EQ(ReadFile(path), "first");
  ASSERT_TRUE(WriteFileAtomically(path, std::string("se\0cond", 7)).ok());
  EXPECT_EQ(ReadFile(path), std::string("se\0cond", 7));
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(CostDataAtomicFile, MissingDirectoryNamesThePath) {
  const std::string path = FreshDir() + "/no/such/dir/out.json";
  const absl::Status status = WriteFileAtomically(path, "x");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), testing::HasSubstr("no/such/dir/out.json"));
}

}  // namespace
}  // namespace shardplan
