#ifndef SHARDPLAN_TESTS_UNIT_SUPPORT_TEST_FILES_H_
#define SHARDPLAN_TESTS_UNIT_SUPPORT_TEST_FILES_H_

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace shardplan::testing_files {

// A fresh directory under the test's temp dir, named after the running test.
inline std::string FreshDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace shardplan::testing_files

#endif  // SHARDPLAN_TESTS_UNIT_SUPPORT_TEST_FILES_H_
