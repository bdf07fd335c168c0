#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_FILES_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_FILES_H_

// File and errno helpers the integration-test support code and tests share.

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace shardplan::testing {

// The whole file; "" when it cannot be read (callers show it in failure messages).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// "<what>: <strerror(errno)>", for the failed system call just made.
inline std::string ErrnoText(absl::string_view what) {
  return absl::StrCat(what, ": ", std::strerror(errno));
}

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_FILES_H_
