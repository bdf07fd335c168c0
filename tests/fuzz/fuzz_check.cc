#include "tests/fuzz/fuzz_check.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace shardplan::fuzz {

void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "FUZZ PROPERTY FAILED: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void CheckError(const absl::Status &status, std::string_view stage,
                std::initializer_list<absl::StatusCode> codes) {
  if (status.ok()) Fail(stage, "expected an error, got OK");
  if (status.message().empty()) {
    Fail(stage, absl::StrCat("error without a message: ", status.ToString()));
  }
  for (absl::StatusCode code : codes) {
    if (status.code() == code) return;
  }
  Fail(stage, absl::StrCat("undocumented error code: ", status.ToString()));
}

}  // namespace shardplan::fuzz
